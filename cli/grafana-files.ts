import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { yamlModule } from '../src/lib/yaml-module.js';
import { CliError } from './errors.js';
import { readStdin } from './manifests.js';

/** One Grafana dashboard read from a file (a file may hold an array of them). */
export interface GrafanaFile {
  /** `file.json`, `file.json#2` for the third of an array, `<stdin>`. */
  label: string;
  json: unknown;
}

const EXTENSIONS = /\.(json|ya?ml)$/i;

function expand(path: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new CliError(`${path}: no such file or directory`);
  }
  if (!st.isDirectory()) return [path];
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.name.startsWith('.')) continue;
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (EXTENSIONS.test(e.name)) files.push(join(dir, e.name));
    }
  };
  walk(path);
  if (files.length === 0) throw new CliError(`${path}: no *.json, *.yaml or *.yml files in this directory`);
  return files;
}

function parseText(label: string, text: string): GrafanaFile[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (jsonError) {
    try {
      value = yamlModule().parse(text);
    } catch (e) {
      const why = /^\s*[[{]/.test(text) ? (jsonError as Error).message : (e as Error).message.split('\n')[0];
      throw new CliError(`${label}: not a JSON or YAML document: ${why}`);
    }
  }
  if (Array.isArray(value)) return value.map((json, i) => ({ label: `${label}#${i}`, json }));
  return [{ label, json: value }];
}

/** The Grafana dashboards of the given paths: files, directories (recursively) and `-` for standard input. */
export async function readGrafanaFiles(paths: readonly string[], stdin: () => Promise<string> = readStdin): Promise<GrafanaFile[]> {
  if (paths.length === 0) throw new CliError('no input: give -f GRAFANA.json, -f DIRECTORY or -f - (standard input)');
  const out: GrafanaFile[] = [];
  for (const p of paths) {
    if (p === '-') out.push(...parseText('<stdin>', await stdin()));
    else for (const file of expand(p)) out.push(...parseText(file, readFileSync(file, 'utf8')));
  }
  return out;
}
