import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../src/paths.js';

/** The built CLI. */
export const DASHCTL_BIN = join(PACKAGE_ROOT, 'dist', 'cli', 'bin', 'dashctl.js');

/** What a dashctl run did. */
export interface Run {
  code: number | string;
  stdout: string;
  stderr: string;
}

/**
 * Runs dashctl (the built CLI, or `o.bin`) with `configFile` as its configuration, as a child
 * process; stdin is a pipe (never a terminal) fed with `o.input`.
 */
export function dashctl(
  configFile: string,
  args: string[],
  o: { env?: Record<string, string>; input?: string | undefined; bin?: string; timeoutMs?: number; cwd?: string | undefined } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = { ...process.env, DASHCTL_CONFIG: configFile, NO_COLOR: '1' };
    for (const k of ['DASHCTL_URL', 'DASHCTL_TOKEN', 'DASHCTL_PROJECT', 'DASHCTL_CONTEXT']) delete env[k];
    Object.assign(env, o.env ?? {});
    const child = spawn(process.execPath, [o.bin ?? DASHCTL_BIN, ...args], { env, cwd: o.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`dashctl ${args.join(' ')} did not exit in time\n${stdout}\n${stderr}`));
    }, o.timeoutMs ?? 50_000);
    // 'close', not 'exit': at 'exit' the child's output may still be in the pipes
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal ?? -1, stdout, stderr });
    });
    child.stdin.end(o.input ?? '');
  });
}

/** A run, for assertion messages. */
export const show = (r: Run) => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;

/** The settings of the current context in a dashctl configuration file. */
export function savedContext(configFile: string): Record<string, string | undefined> {
  const file = JSON.parse(readFileSync(configFile, 'utf8'));
  return file.contexts?.[file.currentContext] ?? {};
}

/** The counts of apply's last line. */
export function summary(r: Run): Record<string, number> {
  const m = /created (\d+), configured (\d+), unchanged (\d+), pruned (\d+), failed (\d+)/.exec(r.stdout);
  if (!m) throw new Error(`no summary line: ${show(r)}`);
  return { created: +m[1], configured: +m[2], unchanged: +m[3], pruned: +m[4], failed: +m[5] };
}
