import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { getJson } from '../api';
import type { PluginSchemas, Schema } from './schema-assist';

interface PluginModule {
  spec: { plugins: { spec: { name: string } }[] };
}

/**
 * The kind's JSON Schema and a lookup of plugin spec schemas (GET /api/v1/schemas/...), for the
 * editor's completion and hover. Only plugin kinds the server lists are asked for.
 */
export function useSchemas(plural: string): { root: Schema; plugins: PluginSchemas } | undefined {
  const root = useQuery(['schema', plural], () => getJson<Schema>(`/api/v1/schemas/${plural}`), { staleTime: Infinity, retry: false });
  const known = useQuery(['plugins'], () => getJson<PluginModule[]>('/api/v1/plugins'), { staleTime: Infinity });
  const plugins = useMemo<PluginSchemas | undefined>(() => {
    if (!known.data) return undefined;
    const names = new Set(known.data.flatMap((m) => m.spec.plugins.map((p) => p.spec.name)));
    const cache = new Map<string, Promise<Schema | undefined>>();
    return (kind: string) => {
      if (!names.has(kind)) return Promise.resolve(undefined);
      let p = cache.get(kind);
      if (!p) {
        p = getJson<Schema>(`/api/v1/schemas/plugins/${encodeURIComponent(kind)}`).catch(() => undefined);
        cache.set(kind, p);
      }
      return p;
    };
  }, [known.data]);
  return root.data && plugins ? { root: root.data, plugins } : undefined;
}
