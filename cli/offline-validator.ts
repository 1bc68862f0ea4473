import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ANONYMOUS, allowAll } from '../src/access/authorizer.js';
import { PasswordHasher } from '../src/access/passwords.js';
import { resolveConfig } from '../src/config.js';
import { ApiError } from '../src/errors.js';
import type { KindDescriptor } from '../src/kinds/descriptor.js';
import { SCHEMAS_DIR } from '../src/paths.js';
import type { PluginEntry } from '../src/lib/datasource-refs.js';
import { PluginRegistry } from '../src/plugins/registry.js';
import { ResourceService } from '../src/resources/service.js';
import { SecretBox } from '../src/secrets/secret-box.js';
import type { Store } from '../src/storage/store.js';
import { HttpError } from './errors.js';
import { KINDS } from './kinds.js';

/** Nothing is stored offline: semantic hooks that look things up find nothing. */
const EMPTY_STORE = {
  get: async () => undefined,
  list: async () => [],
  // nothing is ever written: no event, nothing to catch up with
  onEvent: () => () => undefined,
  sync: async () => undefined,
} as unknown as Store;

/** Status the server would answer for a reason (for messages only). */
const STATUS: Record<string, number> = { BadRequest: 400, Invalid: 400, Forbidden: 403, NotFound: 404 };

/**
 * The server's own validation, run locally: the same kind registry, generated schema validators,
 * plugin registry (built-in catalog plus `plugin.schemas_dir`) and semantic hooks, through
 * `ResourceService.validateOnly` — exactly what `POST /api/validate/<plural>` runs.
 */
export class OfflineValidator {
  private readonly service: ResourceService;

  constructor(opts: { pluginSchemasDir?: string | undefined; secretFilesDir?: string | undefined } = {}) {
    const plugins = PluginRegistry.load(join(SCHEMAS_DIR, 'plugins'), opts.pluginSchemasDir);
    this.service = new ResourceService({
      registry: KINDS,
      store: EMPTY_STORE,
      plugins,
      authorizer: allowAll,
      passwords: new PasswordHasher({ logN: 10, concurrency: 1, maxQueue: 1 }),
      secrets: new SecretBox(randomBytes(32)),
      config: resolveConfig(opts.secretFilesDir ? { security: { secret_files_dir: opts.secretFilesDir } } : {}),
    });
  }

  /** Undefined when valid, else the error the server would answer. */
  async check(d: KindDescriptor, obj: unknown): Promise<HttpError | undefined> {
    try {
      await this.service.validateOnly(ANONYMOUS, d, obj);
      return undefined;
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      return new HttpError(STATUS[e.reason] ?? 400, e.message, 'POST', `/api/validate/${d.plural}`, e.reason, e.details ?? []);
    }
  }
}

/** The plugins the offline validator knows (built-in catalog plus `pluginSchemasDir`), as datasource resolution reads them. */
export function pluginEntriesOf(pluginSchemasDir?: string): PluginEntry[] {
  return PluginRegistry.load(join(SCHEMAS_DIR, 'plugins'), pluginSchemasDir)
    .all()
    .map((p) => ({ module: p.module, type: p.type, kind: p.kind }));
}
