import { createRequire } from 'node:module';

type YamlModule = typeof import('yaml');

let loaded: YamlModule | undefined;

/**
 * The `yaml` package, loaded the first time it is needed. It is 72 modules: loading them at start
 * cost the server and every dashctl command about 40 ms, and most runs never read YAML (the server
 * reads it only for a YAML body or config file, dashctl for a YAML manifest or `-o yaml`).
 */
export function yamlModule(): YamlModule {
  loaded ??= createRequire(import.meta.url)('yaml') as YamlModule;
  return loaded;
}
