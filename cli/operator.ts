import { KINDS } from './kinds.js';
import { isObj, type Obj } from '../src/lib/is-obj.js';

/** perses-operator's annotation holding comma-separated dashboard tags. */
const TAGS_ANNOTATION = 'perses.dev/tags';

/** A Kubernetes custom resource of the perses-operator (`apiVersion: perses.dev/...`). */
export function isOperatorResource(v: Obj): boolean {
  return typeof v.apiVersion === 'string' && v.apiVersion.startsWith('perses.dev/');
}

export interface Converted {
  object: Obj;
  /** Maps a path of the native object back to the custom resource (for line numbers). */
  sourcePath(path: (string | number)[]): (string | number)[];
}

/**
 * `PersesDashboard`, `PersesDatasource`, `PersesGlobalDatasource` (v1alpha1: the spec is the
 * resource spec; v1alpha2: it sits under `spec.config`) -> the native resource:
 * `metadata.namespace` becomes the project, the `perses.dev/tags` annotation the tags, and the
 * operator's own fields (`instanceSelector`, ...) are dropped. Undefined for any other kind.
 */
export function fromOperator(cr: Obj): Converted | undefined {
  const kindName = typeof cr.kind === 'string' && cr.kind.startsWith('Perses') ? cr.kind.slice('Perses'.length) : '';
  const d = kindName ? KINDS.byName(kindName) : undefined;
  if (!d || d.kind !== kindName) return undefined;
  const meta = isObj(cr.metadata) ? cr.metadata : {};
  const spec = isObj(cr.spec) ? cr.spec : {};
  const nested = isObj(spec.config);
  const { instanceSelector: _i, config: _c, ...direct } = spec;
  const native: Obj = { kind: d.kind, metadata: { name: meta.name }, spec: nested ? spec.config : direct };
  const m = native.metadata as Obj;
  if (d.scope === 'project' && typeof meta.namespace === 'string' && meta.namespace) m.project = meta.namespace;
  const annotations = isObj(meta.annotations) ? meta.annotations : {};
  if (typeof annotations[TAGS_ANNOTATION] === 'string') {
    const tags = (annotations[TAGS_ANNOTATION] as string)
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    if (tags.length) m.tags = tags;
  }
  return {
    object: native,
    sourcePath: (path) => {
      if (path[0] === 'spec') return nested ? ['spec', 'config', ...path.slice(1)] : path;
      if (path[0] === 'metadata' && path[1] === 'project') return ['metadata', 'namespace'];
      if (path[0] === 'metadata' && path[1] === 'tags') return ['metadata', 'annotations', TAGS_ANNOTATION];
      return path;
    },
  };
}
