import { Command, Option } from 'commander';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { exits, type Env } from '../env.js';
import { CliError } from '../errors.js';
import { loadManifests, type Manifest } from '../manifests.js';
import { toYaml, yamlDocuments } from '../output.js';
import { isObj } from '../../src/lib/is-obj.js';
import { collect } from './apply.js';
import { checkResources } from './lint.js';

interface BuildFlags {
  filename: string[];
  output: 'yaml' | 'json';
  outputDir?: string;
  check?: boolean;
  online?: boolean;
  pluginSchemasDir?: string;
}

/**
 * `dashctl build -f PATH`: runs dashboards-as-code (.ts/.mts files or directories) and prints the
 * resources they export by default, or writes one file per resource with `--output-dir`.
 * `--check` validates them (offline with the server's schemas, `--online` by the server) and
 * names the TypeScript file and line behind every problem. No type checking: that is `tsc`'s
 * (docs/dashboards-as-code.md).
 */
export function makeBuildCommand(env: Env): Command {
  return new Command('build')
    .description('run dashboards-as-code (.ts files or directories) and print the resources they export')
    .requiredOption('-f, --filename <path>', 'a .ts/.mts file or a directory of them (repeatable)', collect, [])
    .addOption(new Option('-o, --output <format>', 'format of the resources').choices(['yaml', 'json']).default('yaml'))
    .option('--output-dir <dir>', 'write each resource to DIR/[PROJECT/]KIND-NAME.yaml (or .json) instead of printing')
    .option('--check', 'validate the resources (offline, with the server schemas) and report each problem with its .ts file and line')
    .option('--online', 'with --check: ask the server (POST /api/validate/<plural>)')
    .option('--plugin-schemas-dir <dir>', "with --check: extra plugin schemas, as the server's plugin.schemas_dir")
    .action(
      exits(env, async (flags: BuildFlags) => {
        const io = env.io;
        const loaded = await loadManifests(flags.filename, io);
        if (flags.check)
          return checkResources(env, loaded, { online: flags.online, pluginSchemasDir: flags.pluginSchemasDir, output: 'text' });
        const objects = loaded.manifests.map((m) => m.object);
        if (flags.outputDir)
          return writeAll(flags.outputDir, resolve(io.cwd, flags.outputDir), loaded.manifests, flags.output, (t) => io.out(t));
        io.out(
          flags.output === 'json' ? `${JSON.stringify(objects.length === 1 ? objects[0] : objects, null, 2)}\n` : yamlDocuments(objects),
        );
      }),
    );
}

/** One file per resource under `dir` (at `path`); two resources that would share a file are an error naming both. */
function writeAll(dir: string, path: string, manifests: readonly Manifest[], format: 'yaml' | 'json', say: (text: string) => void): void {
  const written = new Map<string, Manifest>();
  for (const m of manifests) {
    const meta = isObj(m.object.metadata) ? m.object.metadata : {};
    const file = join(
      ...(typeof meta.project === 'string' ? [meta.project] : []),
      `${String(m.object.kind).toLowerCase()}-${String(meta.name)}.${format}`,
    );
    const earlier = written.get(file);
    if (earlier) throw new CliError(`${m.file} and ${earlier.file} both export ${m.object.kind} "${String(meta.name)}"; keep one`);
    written.set(file, m);
  }
  for (const [file, m] of written) {
    mkdirSync(join(path, file, '..'), { recursive: true });
    writeFileSync(join(path, file), format === 'json' ? `${JSON.stringify(m.object, null, 2)}\n` : toYaml(m.object));
  }
  say(`wrote ${written.size} resource(s) to ${dir}\n`);
}
