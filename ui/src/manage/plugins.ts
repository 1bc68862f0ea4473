import { useQuery } from '@tanstack/react-query';
import { getJson } from '../api';

interface PluginModule {
  spec: { plugins: { kind: string; spec: { name: string } }[] };
}

/** The plugin kinds of one type the server knows (GET /api/v1/plugins), e.g. every `Datasource` plugin. */
export function usePluginKinds(type: string): string[] {
  const modules = useQuery(['plugins'], () => getJson<PluginModule[]>('/api/v1/plugins'), { staleTime: Infinity });
  return (modules.data ?? [])
    .flatMap((m) => m.spec.plugins)
    .filter((p) => p.kind === type)
    .map((p) => p.spec.name)
    .sort();
}
