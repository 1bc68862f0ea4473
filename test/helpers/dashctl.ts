import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Io } from '../../cli/io.js';
import { runDashctl } from '../../cli/run.js';
import { PACKAGE_ROOT } from '../../src/paths.js';

/** The built CLI. */
export const DASHCTL_BIN = join(PACKAGE_ROOT, 'dist', 'cli', 'bin', 'dashctl.js');

/** What a dashctl run did. */
export interface Run {
  code: number | string;
  stdout: string;
  stderr: string;
}

/** How a test runs dashctl: extra environment variables, standard input, working directory. */
export interface RunOptions {
  env?: Record<string, string>;
  /** Standard input (never a terminal); empty when not given. */
  input?: string | undefined;
  cwd?: string | undefined;
  timeoutMs?: number;
  /** Called with everything written to stderr so far, at each write (to act on a prompt's text). */
  onStderr?: ((stderr: string) => void) | undefined;
}

/** The environment of a run: the test's, without DASHCTL_* settings, with `configFile`, no colour, and `extra`. */
function runEnv(configFile: string, extra: Record<string, string> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, DASHCTL_CONFIG: configFile, NO_COLOR: '1' };
  for (const k of ['DASHCTL_URL', 'DASHCTL_TOKEN', 'DASHCTL_PROJECT', 'DASHCTL_CONTEXT', 'DASHCTL_DEBUG']) delete env[k];
  return Object.assign(env, extra);
}

/**
 * Runs dashctl in this process (cli/run.ts, as Perses tests percli) with `configFile` as its
 * configuration: its own environment (the test's, see runEnv, plus `o.env`), working directory
 * and standard input (`o.input`, not a terminal), and its output captured. No terminal: no
 * colour, no prompts. The bin itself (exit codes, signals, pipes) is tested with dashctlProcess.
 */
export async function dashctl(configFile: string, args: string[], o: RunOptions = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const io: Io = {
    out: (t) => {
      stdout += t;
    },
    err: (t) => {
      stderr += t;
      o.onStderr?.(stderr);
    },
    tty: false,
    errTty: false,
    inTty: false,
    colour: false,
    env: runEnv(configFile, o.env),
    cwd: o.cwd ?? process.cwd(),
    stdin: async () => o.input ?? '',
    ask: () => Promise.reject(new Error('dashctl asked on a terminal it does not have')),
  };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`dashctl ${args.join(' ')} did not end in time\n${stdout}\n${stderr}`)),
      o.timeoutMs ?? 50_000,
    );
  });
  try {
    const code = await Promise.race([runDashctl(args, io), timeout]);
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs dashctl (the built CLI, or `o.bin`) as a child process, with `configFile` as its
 * configuration; stdin is a pipe (never a terminal) fed with `o.input`.
 */
export function dashctlProcess(configFile: string, args: string[], o: RunOptions & { bin?: string } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [o.bin ?? DASHCTL_BIN, ...args], {
      env: runEnv(configFile, o.env),
      cwd: o.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
      o.onStderr?.(stderr);
    });
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
