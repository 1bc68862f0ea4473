import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** One Git source's repository, ref, credentials and limits. */
export interface GitCheckoutOptions {
  /** The repository (no credentials in it: the configuration refuses them). */
  url: string;
  /** Branch or tag; undefined: the repository's default branch. */
  ref?: string;
  /** The directory that holds the sources' clones; this one gets a directory of its own in it. */
  workDir: string;
  /** Longest one git command may run. */
  timeoutMs: number;
  /** Sent with the password over HTTP(S). */
  username: string;
  /** A file holding the password or token, read before each clone or fetch. */
  passwordFile?: string;
}

/** Where the credential helper finds the user name and password: the git process's environment, never its command line. */
const USER_VAR = 'DASHPLANE_GIT_USERNAME';
const PASSWORD_VAR = 'DASHPLANE_GIT_PASSWORD';
/** A credential helper (run by git through sh) answering from those variables. */
const HELPER = `!f() { test "$1" = get || exit 0; printf 'username=%s\\npassword=%s\\n' "$${USER_VAR}" "$${PASSWORD_VAR}"; }; f`;

/**
 * A shallow checkout of one branch or tag of a repository, kept current with the git program
 * (run directly, no shell, arguments as an array): `git clone --depth 1 --branch REF` the first
 * time, then `git fetch --depth 1 origin REF` and `git reset --hard FETCH_HEAD`. git never
 * prompts (it fails instead), uses no credential helper but dashplane's (when a password file is
 * given), and gets none of the server's DASHPLANE_* variables.
 */
export class GitCheckout {
  /** The checkout's directory. */
  readonly dir: string;

  constructor(private readonly o: GitCheckoutOptions) {
    this.dir = join(
      o.workDir,
      createHash('sha256')
        .update(`${o.url}\0${o.ref ?? ''}`)
        .digest('hex')
        .slice(0, 16),
    );
  }

  /** Brings the checkout to the latest commit of the ref; resolves with that commit, rejects with git's own words (never the password). */
  async sync(signal: AbortSignal): Promise<string> {
    const env = await this.env();
    if (existsSync(join(this.dir, '.git'))) {
      await this.git(['fetch', '--quiet', '--depth', '1', '--force', '--no-tags', 'origin', this.o.ref ?? 'HEAD'], env, signal);
      try {
        await this.git(['reset', '--quiet', '--hard', 'FETCH_HEAD'], env, signal);
        await this.git(['clean', '--quiet', '-ffdx'], env, signal);
      } catch (e) {
        // what was fetched cannot be checked out here (a damaged checkout): the next sync clones afresh
        await rm(this.dir, { recursive: true, force: true });
        throw e;
      }
    } else {
      // a clone stopped half-way leaves a directory without .git, or a broken one: start afresh
      await rm(this.dir, { recursive: true, force: true });
      await mkdir(dirname(this.dir), { recursive: true, mode: 0o700 });
      await this.git(
        [
          'clone',
          '--quiet',
          '--depth',
          '1',
          '--single-branch',
          ...(this.o.ref ? ['--branch', this.o.ref] : []),
          '--',
          this.o.url,
          this.dir,
        ],
        env,
        signal,
        dirname(this.dir),
      );
    }
    return (await this.git(['rev-parse', 'HEAD'], env, signal)).trim();
  }

  /** Runs git in the checkout (or `cwd`); rejects with the last lines git wrote. */
  private git(args: string[], env: NodeJS.ProcessEnv, signal: AbortSignal, cwd = this.dir): Promise<string> {
    const helper = this.o.passwordFile ? ['-c', `credential.helper=${HELPER}`] : [];
    const full = ['-c', 'credential.helper=', ...helper, '-c', 'core.askPass=', ...args];
    return new Promise((resolve, reject) => {
      execFile(
        'git',
        full,
        { cwd, env, timeout: this.o.timeoutMs, killSignal: 'SIGKILL', signal, maxBuffer: 4 << 20 },
        (err, stdout, stderr) => {
          if (!err) return resolve(stdout);
          const e = err as NodeJS.ErrnoException & { killed?: boolean; signal?: string };
          if (e.code === 'ENOENT') return reject(new Error('the git program is not installed (or not on PATH); install git'));
          if (e.name === 'AbortError') return reject(new Error('stopped'));
          if (e.killed || e.signal === 'SIGKILL')
            return reject(new Error(`git ${args[0]} took longer than provisioning.git_timeout (${this.o.timeoutMs} ms); stopped`));
          const said = stderr.trim().split('\n').slice(-3).join(' ').trim();
          reject(new Error(`git ${args[0]} failed: ${said || e.message}`));
        },
      );
    });
  }

  /** The environment of git: the server's, without its own settings and secrets, never prompting; the credentials for the helper. */
  private async env(): Promise<NodeJS.ProcessEnv> {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env))
      if (!k.startsWith('DASHPLANE_') && k !== 'GIT_ASKPASS' && k !== 'SSH_ASKPASS') env[k] = v;
    env.GIT_TERMINAL_PROMPT = '0';
    env.GIT_SSH_COMMAND ??= 'ssh -o BatchMode=yes';
    env.LC_ALL = 'C';
    if (this.o.passwordFile) {
      let password: string;
      try {
        password = (await readFile(this.o.passwordFile, 'utf8')).replace(/\r?\n$/, '');
      } catch (e) {
        throw new Error(`cannot read password_file ${this.o.passwordFile} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      }
      if (!password) throw new Error(`password_file ${this.o.passwordFile} is empty; write the password or access token in it`);
      env[USER_VAR] = this.o.username;
      env[PASSWORD_VAR] = password;
    }
    return env;
  }
}
