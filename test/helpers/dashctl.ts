import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../src/paths.js';

/** The built CLI. */
const BIN = join(PACKAGE_ROOT, 'dist', 'cli', 'bin', 'dashctl.js');

/** How a dashctl run ended. */
export interface Run {
  code: number | string;
  stdout: string;
  stderr: string;
}

/** Runs dashctl (a child process) with `configFile` as its configuration; stdin is a pipe (never a terminal), colours off. */
export function dashctl(configFile: string, args: string[], o: { env?: Record<string, string>; input?: string } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = { ...process.env, DASHCTL_CONFIG: configFile, NO_COLOR: '1' };
    for (const k of ['DASHCTL_URL', 'DASHCTL_TOKEN', 'DASHCTL_PROJECT']) delete env[k];
    Object.assign(env, o.env ?? {});
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`dashctl ${args.join(' ')} did not exit within 50 s\n${stdout}\n${stderr}`));
    }, 50_000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal ?? -1, stdout, stderr });
    });
    child.stdin.end(o.input ?? '');
  });
}

/** A run's exit code and output, for assertion messages. */
export const show = (r: Run) => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;

/** The counts of apply's last line. */
export function summary(r: Run): Record<string, number> {
  const m = /created (\d+), configured (\d+), unchanged (\d+), pruned (\d+), failed (\d+)/.exec(r.stdout);
  if (!m) throw new Error(`no summary line: ${show(r)}`);
  return { created: +m[1], configured: +m[2], unchanged: +m[3], pruned: +m[4], failed: +m[5] };
}
