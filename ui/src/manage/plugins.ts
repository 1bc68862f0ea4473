import { useQuery } from '@tanstack/react-query';
import { getJson } from '../api';

/** An `allowedEndpoints` entry of a datasource's proxy. */
export interface Endpoint {
  endpointPattern: string;
  method: string;
}

interface PluginModule {
  spec: { plugins: { kind: string; spec: { name: string; allowedEndpoints?: Endpoint[] } }[] };
}

const usePluginModules = () => useQuery(['plugins'], () => getJson<PluginModule[]>('/api/v1/plugins'), { staleTime: Infinity });

/** The plugin kinds of one type the server knows (GET /api/v1/plugins), e.g. every `Datasource` plugin. */
export function usePluginKinds(type: string): string[] {
  const modules = usePluginModules();
  return (modules.data ?? [])
    .flatMap((m) => m.spec.plugins)
    .filter((p) => p.kind === type)
    .map((p) => p.spec.name)
    .sort();
}

/**
 * The allowedEndpoints the server suggests for each datasource kind that has some (the calls its
 * Perses plugin makes; schemas/plugins/catalog.json), by kind.
 */
export function useSuggestedEndpoints(): ReadonlyMap<string, Endpoint[]> {
  const modules = usePluginModules();
  return new Map(
    (modules.data ?? [])
      .flatMap((m) => m.spec.plugins)
      .filter((p) => p.kind === 'Datasource' && p.spec.allowedEndpoints)
      .map((p) => [p.spec.name, p.spec.allowedEndpoints!]),
  );
}
