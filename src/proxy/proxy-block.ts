import type { ErrorDetail } from '../errors.js';
import { isObj, type Obj } from '../lib/is-obj.js';
import { joinPath } from '../lib/object-path.js';
import { type HTTPProxySpec, httpProxySpecProblems } from './http-proxy.js';
import { type SQLProxySpec, sqlProxySpecProblems } from './sql/sql-proxy-spec.js';

/** A datasource's proxy block, its spec checked: what the proxy serves it with. */
export type ProxyBlock = { kind: 'HTTPProxy'; spec: HTTPProxySpec; path: string } | { kind: 'SQLProxy'; spec: SQLProxySpec; path: string };

/** The proxy kinds: how a block's `kind` is recognised, and the checks of its spec. */
const PROXY_KINDS: readonly {
  kind: ProxyBlock['kind'];
  is(kind: string): boolean;
  problems(spec: unknown, path: string): ErrorDetail[];
}[] = [
  { kind: 'HTTPProxy', is: (k) => k === 'HTTPProxy', problems: httpProxySpecProblems },
  // Perses compares this kind in lower case: its plugin writes "SQLProxy", its spec package "sqlproxy"
  { kind: 'SQLProxy', is: (k) => k.toLowerCase() === 'sqlproxy', problems: sqlProxySpecProblems },
];

/** How deep inside a plugin spec proxy blocks are looked for (the same limit for checking and using). */
const MAX_DEPTH = 8;

/** Every proxy block inside a plugin spec (blocks inside blocks too), breadth-first, with its kind and path. */
function proxyBlocks(pluginSpec: unknown, base: string): { kind: (typeof PROXY_KINDS)[number]; block: Obj; path: string }[] {
  const out: { kind: (typeof PROXY_KINDS)[number]; block: Obj; path: string }[] = [];
  const queue: { v: unknown; path: string; depth: number }[] = [{ v: pluginSpec, path: base, depth: 0 }];
  for (let i = 0; i < queue.length; i++) {
    const { v, path, depth } = queue[i];
    if (!isObj(v) || depth > MAX_DEPTH) continue;
    const kind = typeof v.kind === 'string' ? PROXY_KINDS.find((k) => k.is(v.kind as string)) : undefined;
    if (kind) out.push({ kind, block: v, path });
    for (const [k, child] of Object.entries(v)) queue.push({ v: child, path: joinPath(path, k), depth: depth + 1 });
  }
  return out;
}

/**
 * Every problem of the proxy block of a plugin spec, with its JSON path: at most one block (of
 * any proxy kind), then the checks of its kind. Run before a save, and before the proxy
 * authorizes or looks up anything.
 */
export function proxyProblems(pluginSpec: unknown, base = 'spec.plugin.spec'): ErrorDetail[] {
  const blocks = proxyBlocks(pluginSpec, base);
  if (blocks.length === 0) return [];
  const { kind, block, path } = blocks[0];
  const out: ErrorDetail[] = blocks
    .slice(1)
    .map((b) => ({ path: b.path, message: `a datasource has a single proxy block and one is already at ${path}; remove this one` }));
  return [...out, ...kind.problems(block.spec, joinPath(path, 'spec'))];
}

/**
 * The proxy block of a plugin spec (Perses puts it at `proxy`), with its kind and path. Its spec
 * has the types of its kind only when `proxyProblems` is empty: callers check that first.
 */
export function findProxy(pluginSpec: unknown, base = 'spec.plugin.spec'): ProxyBlock | undefined {
  const first = proxyBlocks(pluginSpec, base)[0];
  return first && isObj(first.block.spec)
    ? ({ kind: first.kind.kind, spec: first.block.spec, path: first.path } as unknown as ProxyBlock)
    : undefined;
}

/** Names of the secrets the proxy blocks of these plugin specs use (every block, so none escapes a permission check). */
export function proxySecretNames(...pluginSpecs: unknown[]): string[] {
  return pluginSpecs
    .flatMap((s) => proxyBlocks(s, '').map((b) => (isObj(b.block.spec) ? b.block.spec.secret : undefined)))
    .filter((s): s is string => typeof s === 'string' && s !== '');
}
