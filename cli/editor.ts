import { spawn } from 'node:child_process';
import { yamlModule } from '../src/lib/yaml-module.js';
import { CliError } from './errors.js';

/** The editor a user chose: `$EDITOR`, else `$VISUAL`, else `vi` (a command line: it may carry arguments). */
export function editorCommand(env: Readonly<Record<string, string | undefined>>): string {
  return env.EDITOR?.trim() || env.VISUAL?.trim() || 'vi';
}

/**
 * Opens `file` in the editor on this terminal and waits for it (without blocking: the event loop
 * runs on meanwhile). The editor line runs in a shell (so `code --wait` works) with the file as a
 * separate, quoted argument, and the run's environment `env`.
 */
export async function runEditor(file: string, env: Readonly<Record<string, string | undefined>>): Promise<void> {
  const editor = editorCommand(env);
  const child =
    process.platform === 'win32'
      ? spawn(`${editor} "${file}"`, { stdio: 'inherit', shell: true, env })
      : spawn('/bin/sh', ['-c', `${editor} "$1"`, 'dashctl-editor', file], { stdio: 'inherit', env });
  const r = await new Promise<{ status: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ status: null, signal: null, error }));
    child.once('exit', (status, signal) => resolve({ status, signal }));
  });
  if (r.error) throw new CliError(`cannot start the editor "${editor}" (${r.error.message}); set EDITOR`);
  if (r.status === 127) throw new CliError(`the editor "${editor}" was not found; set EDITOR (or VISUAL) to an installed editor`);
  if (r.status !== 0) throw new CliError(`the editor "${editor}" exited with ${r.status ?? r.signal}; nothing was saved`);
}

/** What dashctl puts above the object: how editing works, and the errors of the last attempt. */
export function editHeader(what: string, errors: readonly string[]): string {
  const lines = [
    ...(errors.length
      ? ['The edit could not be saved; fix it below (or empty the file to give up):', ...errors.map((e) => `  ${e}`), '']
      : []),
    `${what}`,
    "Edit it below and save. Lines starting with '#' are ignored; an empty file or no change cancels.",
    'If saving fails, this file is reopened with the errors at the top.',
  ];
  return `${lines.map((l) => (l ? `# ${l}` : '#')).join('\n')}\n`;
}

/** The edited text without dashctl's comment lines (a YAML line starting with `#` is only ever a comment). */
export function withoutComments(text: string): string {
  return text
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .join('\n');
}

/** The one YAML document of an edited file, or the parser's message. */
export function parseEdited(text: string): { value: unknown } | { error: string } {
  const docs = yamlModule().parseAllDocuments(text);
  if (!Array.isArray(docs)) return { value: undefined };
  if (docs.length !== 1) return { error: `expected one YAML document, found ${docs.length}` };
  const problem = docs[0].errors[0];
  if (problem) return { error: `not valid YAML: ${problem.message.split('\n')[0]}` };
  return { value: docs[0].toJS() };
}
