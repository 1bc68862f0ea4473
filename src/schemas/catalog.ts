import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { notFound } from '../errors.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { PluginRegistry } from '../plugins/registry.js';
import { bundle } from './bundle.js';

type Json = Record<string, unknown>;

/** Where the schemas' `$id`s live (schemas/*.json). */
const ID_BASE = 'https://dashplane.dev/schemas/';

/**
 * The JSON Schemas the server validates with, for clients (the UI's editor completes and
 * explains fields with them): a kind's schema is the `schemas/kinds` file whose `title` is the
 * kind's name; a plugin's is its catalog entry's. Each is served self-contained (bundled).
 */
export class SchemaCatalog {
  private readonly docs = new Map<string, Json>();
  private readonly byTitle = new Map<string, Json>();
  private readonly cache = new Map<string, Json>();

  constructor(private readonly o: { schemasDir: string; plugins: PluginRegistry }) {
    for (const sub of ['defs', 'kinds', 'plugins']) {
      for (const f of readdirSync(join(o.schemasDir, sub)).filter((n) => n.endsWith('.json') && n !== 'catalog.json')) {
        const doc = JSON.parse(readFileSync(join(o.schemasDir, sub, f), 'utf8')) as Json;
        if (typeof doc.$id === 'string') this.docs.set(doc.$id, doc);
        if (sub === 'kinds' && typeof doc.title === 'string') this.byTitle.set(doc.title, doc);
      }
    }
  }

  /** The bundled schema of a kind's objects. */
  kind(d: KindDescriptor): Json {
    return this.cached(`kind/${d.kind}`, () => {
      const root = this.byTitle.get(d.kind);
      if (!root) throw notFound(`no schema for ${d.kind}`);
      return bundle(root, { docs: this.docs, base: ID_BASE });
    });
  }

  /** The bundled schema of a plugin's `spec` (an open object when the plugin declares none). */
  plugin(kind: string): Json {
    const info = this.o.plugins.get(kind);
    if (!info) throw notFound(`unknown plugin kind "${kind}" (GET /api/v1/plugins lists them)`);
    return this.cached(`plugin/${kind}`, () => {
      const raw = info.schema;
      if (!raw)
        return {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          description: `The spec of ${kind}: the server checks no shape for it.`,
        };
      return bundle(raw, { docs: this.docs, base: ID_BASE });
    });
  }

  private cached(key: string, make: () => Json): Json {
    let v = this.cache.get(key);
    if (!v) {
      v = make();
      this.cache.set(key, v);
    }
    return v;
  }
}
