import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../src/paths.js';

/** The built CLI. */
export const DASHCTL_BIN = join(PACKAGE_ROOT, 'dist', 'cli', 'bin', 'dashctl.js');

/** What a dashctl run printed and how it ended. */
export interface DashctlRun {
  code: number | string;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built dashctl as a child process with `configFile` as its configuration (no colour,
 * none of the caller's DASHCTL_* variables); `input` is written to its standard input.
 */
export function runDashctl(configFile: string, args: string[], o: { env?: Record<string, string>; input?: string; timeoutMs?: number } = {}): Promise<DashctlRun> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = { ...process.env, DASHCTL_CONFIG: configFile, NO_COLOR: '1' };
    for (const k of ['DASHCTL_URL', 'DASHCTL_TOKEN', 'DASHCTL_PROJECT']) delete env[k];
    Object.assign(env, o.env ?? {});
    const child = spawn(process.execPath, [DASHCTL_BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`dashctl ${args.join(' ')} did not exit in time\n${stdout}\n${stderr}`));
    }, o.timeoutMs ?? 50_000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal ?? -1, stdout, stderr });
    });
    child.stdin.end(o.input ?? '');
  });
}

/** exit code, stdout and stderr, for assertion messages. */
export const showRun = (r: DashctlRun) => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
