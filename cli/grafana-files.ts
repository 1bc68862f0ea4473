import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_MAX_DEPTH, jsonTextDepthExceeds, NestingError, parseYamlDocuments, valueDepthExceeds } from '../src/lib/nesting.js';
import { CliError } from './errors.js';
import type { Input } from './manifests.js';

/** One Grafana dashboard read from a file (a file may hold an array of them). */
export interface GrafanaFile {
  /** `file.json`, `file.json#2` for the third of an array, `<stdin>`. */
  label: string;
  json: unknown;
}

const EXTENSIONS = /\.(json|ya?ml)$/i;

function expand(path: string, cwd: string): string[] {
  let st;
  try {
    st = statSync(resolve(cwd, path));
  } catch {
    throw new CliError(`${path}: no such file or directory`);
  }
  if (!st.isDirectory()) return [path];
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(resolve(cwd, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.name.startsWith('.')) continue;
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (EXTENSIONS.test(e.name)) files.push(join(dir, e.name));
    }
  };
  walk(path);
  if (files.length === 0) throw new CliError(`${path}: no *.json, *.yaml or *.yml files in this directory`);
  return files;
}

/**
 * The dashboards of one file. Nesting is bounded before or while parsing, as for dashctl's other
 * files (src/lib/nesting.ts): a small file nested very deep would otherwise exhaust the stack or
 * the memory of the parser.
 */
function parseText(label: string, text: string): GrafanaFile[] {
  const tooDeep = () =>
    new CliError(
      `${label}: nested more than ${DEFAULT_MAX_DEPTH} levels deep (dashctl and the server read at most ${DEFAULT_MAX_DEPTH}); this is not a Grafana dashboard`,
    );
  let value: unknown;
  const looksJson = /^\s*[[{]/.test(text);
  if (looksJson && jsonTextDepthExceeds(text, DEFAULT_MAX_DEPTH)) throw tooDeep();
  try {
    value = JSON.parse(text);
  } catch (jsonError) {
    let docs;
    try {
      docs = parseYamlDocuments(text, DEFAULT_MAX_DEPTH);
    } catch (e) {
      if (e instanceof NestingError) throw tooDeep();
      throw new CliError(`${label}: not a JSON or YAML document: ${(e as Error).message.split('\n')[0]}`);
    }
    const bad = docs.find((d) => d.errors.length);
    if (bad || docs.length === 0) {
      const why = looksJson ? (jsonError as Error).message : (bad?.errors[0].message.split('\n')[0] ?? 'the file is empty');
      throw new CliError(`${label}: not a JSON or YAML document: ${why}`);
    }
    if (docs.length > 1)
      throw new CliError(`${label}: holds ${docs.length} YAML documents; give one dashboard (or a list of them) per file`);
    value = docs[0].toJS({ maxAliasCount: 100 });
  }
  if (valueDepthExceeds(value, DEFAULT_MAX_DEPTH)) throw tooDeep();
  if (Array.isArray(value)) return value.map((json, i) => ({ label: `${label}#${i}`, json }));
  return [{ label, json: value }];
}

/** The Grafana dashboards of the given paths: files, directories (recursively) and `-` for standard input; relative paths from `input.cwd`. */
export async function readGrafanaFiles(paths: readonly string[], input: Input): Promise<GrafanaFile[]> {
  if (paths.length === 0) throw new CliError('no input: give -f GRAFANA.json, -f DIRECTORY or -f - (standard input)');
  const out: GrafanaFile[] = [];
  for (const p of paths) {
    if (p === '-') out.push(...parseText('<stdin>', await input.stdin()));
    else for (const file of expand(p, input.cwd)) out.push(...parseText(file, readFileSync(resolve(input.cwd, file), 'utf8')));
  }
  return out;
}
