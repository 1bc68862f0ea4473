import { Command, Option } from 'commander';
import { toHttpError } from '../api-client.js';
import { readBuildInfo, type BuildInfo } from '../../src/build-info.js';
import type { Env } from '../env.js';
import { describeError } from '../errors.js';
import { toYaml } from '../output.js';

/** This dashctl's version (the package's): what `dashctl --version` prints. */
export function clientVersion(): string {
  return readBuildInfo().version;
}

/**
 * `dashctl version`: the client's version and commit, and the server's as `GET /api/v1/health`
 * reports them (`--client`: the client only). An unreachable server is an error (exit 1) after
 * the client's line, as with kubectl.
 */
export function makeVersionCommand(env: Env): Command {
  return new Command('version')
    .description("print the client's and the server's versions")
    .option('--client', 'only the client version (no server needed)')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['json', 'yaml']))
    .action(async (flags: { client?: boolean; output?: 'json' | 'yaml' }) => {
      const client = readBuildInfo();
      const io = env.io;
      let server: (BuildInfo & { url: string }) | undefined;
      let failure: unknown;
      if (!flags.client) {
        try {
          server = await serverVersion(env);
        } catch (e) {
          failure = e;
        }
      }
      if (flags.output) {
        const doc = { clientVersion: { version: client.version, commit: client.commit }, ...(server ? { serverVersion: server } : {}) };
        io.out(flags.output === 'json' ? `${JSON.stringify(doc, null, 2)}\n` : toYaml(doc));
      } else {
        io.out(`Client Version: ${client.version}${commit(client.commit)}\n`);
        if (server) io.out(`Server Version: ${server.version}${commit(server.commit)} at ${server.url}\n`);
      }
      if (failure) throw new Error(`cannot read the server version: ${describeError(failure)}`);
    });
}

async function serverVersion(env: Env): Promise<BuildInfo & { url: string }> {
  const api = env.ctx().client();
  const res = await api.request('GET', '/api/v1/health', { auth: false });
  // 503 means the database is down; the body still names the build.
  if ((res.status !== 200 && res.status !== 503) || typeof res.body?.version !== 'string') throw toHttpError('GET', '/api/v1/health', res);
  return {
    version: res.body.version,
    commit: String(res.body.commit ?? 'unknown'),
    buildTime: String(res.body.buildTime ?? ''),
    url: api.url,
  };
}

function commit(c: string): string {
  return c && c !== 'unknown' ? ` (commit ${c.slice(0, 12)})` : '';
}
