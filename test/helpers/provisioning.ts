import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import type { SourceStatus } from '../../src/controllers/provisioning/status.js';
import { spawnServer, stopChild, type ServerProcess } from './process.js';
import { callJson, tempDir, type ApiResponse } from './server.js';
import { waitFor } from './wait.js';

const run = promisify(execFile);

/** A dashplane process started with a configuration file (provisioning is configured only there or in DASHPLANE_PROVISIONING_*). */
export interface ProvisioningServer {
  url: string;
  process: ServerProcess;
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse>;
  /** The server's log lines, parsed. */
  logLines(): { level: number; msg: string }[];
  stop(): Promise<void>;
}

/** Starts `dashplane --config FILE` (a child process, its log captured) over a fresh data directory. */
export async function startProvisioningServer(
  config: Record<string, unknown>,
  env: Record<string, string> = {},
  dataDir?: string,
): Promise<ProvisioningServer> {
  const dir = tempDir('dashplane-prov-');
  const file = join(dir.path, 'config.yaml');
  writeFileSync(file, stringify(config));
  const p = await spawnServer({ dataDir: dataDir ?? join(dir.path, 'data'), env, args: ['--config', file, '--listen', '127.0.0.1:0'] });
  return {
    url: p.url,
    process: p,
    api: (method, path, body, headers) => callJson(p.url, method, path, body, headers),
    logLines: () =>
      p
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { level: number; msg: string }),
    stop: async () => {
      await stopChild(p.child);
      dir.remove();
    },
  };
}

/** GET /api/v1/admin/provisioning's sources (asserting 200). */
export async function sources(s: Pick<ProvisioningServer, 'api'>, headers: Record<string, string> = {}): Promise<SourceStatus[]> {
  const r = await s.api('GET', '/api/v1/admin/provisioning', undefined, headers);
  if (r.status !== 200) throw new Error(`GET /api/v1/admin/provisioning answered ${r.status}: ${r.text}`);
  return (r.body as { sources: SourceStatus[] }).sources;
}

/** Source `i` once `pred` holds for it. */
export async function sourceWhen(
  s: Pick<ProvisioningServer, 'api'>,
  what: string,
  pred: (st: SourceStatus) => boolean,
  i = 0,
  headers: Record<string, string> = {},
): Promise<SourceStatus> {
  let found: SourceStatus | undefined;
  await waitFor(
    `${what} (source ${i}; last: ${JSON.stringify(found)})`,
    async () => {
      found = (await sources(s, headers))[i];
      return pred(found);
    },
    20_000,
  );
  return found!;
}

/** Source `i` once its first pass is done. */
export function firstPass(s: Pick<ProvisioningServer, 'api'>, i = 0, headers: Record<string, string> = {}): Promise<SourceStatus> {
  return sourceWhen(s, 'the first provisioning pass', (st) => st.passes > 0, i, headers);
}

/**
 * Waits until source `i` has completed `more` passes after now (2 by default: the pass under way
 * may have read its files before a change made just now; the next one read them after).
 */
export async function passes(
  s: Pick<ProvisioningServer, 'api'>,
  more = 2,
  i = 0,
  headers: Record<string, string> = {},
  timeoutMs = 20_000,
): Promise<SourceStatus> {
  const from = (await sources(s, headers))[i].passes;
  let last: SourceStatus | undefined;
  await waitFor(
    `${more} more provisioning passes of source ${i} (after ${from}; last: ${JSON.stringify(last)})`,
    async () => {
      last = (await sources(s, headers))[i];
      return last.passes >= from + more;
    },
    timeoutMs,
  );
  return last!;
}

/** Writes resources into `dir/file`: YAML documents (or a JSON array for *.json). */
export function writeResources(dir: string, file: string, resources: unknown[]): void {
  const path = join(dir, file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, file.endsWith('.json') ? JSON.stringify(resources, null, 2) : resources.map((r) => stringify(r)).join('---\n'));
}

export const project = (name: string) => ({ kind: 'Project', metadata: { name }, spec: { display: { name } } });

export const role = (project: string, name: string) => ({
  kind: 'Role',
  metadata: { name, project },
  spec: { permissions: [{ actions: ['read'], scopes: ['Dashboard'] }] },
});

export const dashboard = (project: string, name: string, title: string) => ({
  kind: 'Dashboard',
  metadata: { name, project },
  spec: {
    display: { name: title },
    duration: '1h',
    panels: { a: { kind: 'Panel', spec: { display: { name: 'Notes' }, plugin: { kind: 'Markdown', spec: { text: `# ${title}` } } } } },
    layouts: [{ kind: 'Grid', spec: { items: [{ x: 0, y: 0, width: 12, height: 4, content: { $ref: '#/spec/panels/a' } }] } }],
  },
});

/** A bare repository and a working clone that pushes to it (the real git program, no network). */
export class TestRepo {
  private readonly dir = tempDir('dashplane-git-repo-');
  readonly bare = join(this.dir.path, 'origin.git');
  readonly work = join(this.dir.path, 'work');
  /** The URL a source names: file:// (a local path clones ignore --depth). */
  readonly url = `file://${this.bare}`;

  static async create(branch = 'main'): Promise<TestRepo> {
    const r = new TestRepo();
    await r.git(r.dir.path, 'init', '--quiet', '--bare', '--initial-branch', branch, r.bare);
    await r.git(r.dir.path, 'init', '--quiet', '--initial-branch', branch, r.work);
    await r.git(r.work, 'remote', 'add', 'origin', r.bare);
    return r;
  }

  /** Writes files (path -> resources, or null to delete), commits them and pushes `branch`. */
  async commit(message: string, files: Record<string, unknown[] | null>, branch = 'main'): Promise<string> {
    for (const [path, resources] of Object.entries(files)) {
      if (resources === null) rmSync(join(this.work, path), { force: true });
      else writeResources(this.work, path, resources);
    }
    await this.git(this.work, 'add', '--all');
    await this.git(this.work, '-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '--quiet', '-m', message);
    await this.git(this.work, 'push', '--quiet', '--force', 'origin', `HEAD:refs/heads/${branch}`);
    return (await this.git(this.work, 'rev-parse', 'HEAD')).trim();
  }

  /** Points `tag` at the last commit (moving it if it exists) and pushes it. */
  async tag(tag: string): Promise<void> {
    await this.git(this.work, 'tag', '--force', tag);
    await this.git(this.work, 'push', '--quiet', '--force', 'origin', `refs/tags/${tag}`);
  }

  async git(cwd: string, ...args: string[]): Promise<string> {
    const { stdout } = await run('git', args, { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: this.dir.path } });
    return stdout;
  }

  remove(): void {
    this.dir.remove();
  }
}
