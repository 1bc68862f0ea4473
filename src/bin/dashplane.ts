#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { readBuildInfo } from '../build-info.js';
import { ConfigError, loadConfig, type ResolvedConfig } from '../config.js';

// Each command imports what it runs when it runs: --help, --version and a bad argument answer at
// once, without loading the server (Fastify, LevelDB, the kinds) first.

const USAGE = `usage: dashplane [--config FILE] [--listen HOST:PORT]      start the server
       dashplane --version                                   print the version
       dashplane secrets rotate [--config FILE]              re-encrypt stored secrets with the primary key
       dashplane migrate-store --from level:./data --to postgres://user@host/db
                                                              copy everything to another store (servers stopped)
       dashplane backup --to FILE --server URL [--token TOKEN] [--no-history] [--no-sessions]
       dashplane backup --to FILE --from postgres://... | level:./data
                                                              a consistent backup, while the server runs
                                                              (--from level: only while it is stopped)
       dashplane restore --from FILE --to level:./data | postgres://...
                                                              a backup into an empty store (servers stopped)

Configuration: the YAML file (or DASHPLANE_CONFIG), then DASHPLANE_* environment variables
(e.g. DASHPLANE_DATABASE_LEVEL_PATH=/var/lib/dashplane), then --listen.`;

function fail(message: string, code: number): never {
  console.error(`dashplane: ${message}`);
  process.exit(code);
}

async function main(): Promise<void> {
  // Whatever dashplane creates is its user's alone: the database's files (LevelDB creates them with
  // the umask's modes, as they come), the generated key, the audit file, backups, a restored or
  // migrated store (files 0600, directories 0700). A program that calls startServer itself keeps
  // its own umask; its data directory is still made 0700 (src/storage/private-dir.ts).
  process.umask(process.umask() | 0o077);
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        config: { type: 'string', short: 'c' },
        listen: { type: 'string', short: 'l' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'V' },
        from: { type: 'string' },
        to: { type: 'string' },
        server: { type: 'string' },
        token: { type: 'string' },
        'no-history': { type: 'boolean' },
        'no-sessions': { type: 'boolean' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    fail(`${(e as Error).message}\n${USAGE}`, 2);
  }
  const args = parsed.values;
  if (args.help) {
    console.log(USAGE);
    return;
  }
  if (args.version) {
    console.log(readBuildInfo().version);
    return;
  }
  const command = parsed.positionals.join(' ');
  if (command === 'migrate-store') {
    if (!args.from || !args.to) fail(`migrate-store needs --from and --to\n${USAGE}`, 2);
    try {
      const [{ migrateStore }, { storeFromUri }] = await Promise.all([
        import('../admin/migrate-store.js'),
        import('../admin/open-store.js'),
      ]);
      await migrateStore(storeFromUri(args.from, { existing: true }), storeFromUri(args.to), (line) => console.log(`dashplane: ${line}`));
    } catch (e) {
      fail((e as Error).message, 1);
    }
    return;
  }
  const say = (line: string) => console.log(`dashplane: ${line}`);
  if (command === 'backup') {
    if (!args.to) fail(`backup needs --to FILE\n${USAGE}`, 2);
    const a = {
      to: args.to,
      ...(args.server ? { server: args.server } : {}),
      ...(args.from ? { from: args.from } : {}),
      history: !args['no-history'],
      sessions: !args['no-sessions'],
    };
    const token = args.token ?? process.env.DASHPLANE_TOKEN;
    const { backup } = await import('./backup-commands.js');
    await backup({ ...a, ...(token ? { token } : {}) }, say).catch((e: Error) => fail(e.message, 1));
    return;
  }
  if (command === 'restore') {
    if (!args.from || !args.to) fail(`restore needs --from FILE and --to STORE\n${USAGE}`, 2);
    const { restore } = await import('./backup-commands.js');
    await restore(args.from, args.to, say).catch((e: Error) => fail(e.message, 1));
    return;
  }
  if (command !== '' && command !== 'secrets rotate') fail(`unknown command "${command}"\n${USAGE}`, 2);
  let loaded;
  try {
    loaded = loadConfig({ file: args.config ?? process.env.DASHPLANE_CONFIG, listen: args.listen, env: process.env });
  } catch (e) {
    if (e instanceof ConfigError) fail(e.message, 2);
    throw e;
  }
  for (const w of loaded.warnings) console.error(`dashplane: warning: ${w}`);
  if (command === 'secrets rotate') {
    const { rotateSecrets } = await import('../admin/rotate-secrets.js');
    await rotateSecrets(loaded.config, (line) => console.log(`dashplane: ${line}`)).catch((e: Error) => fail(e.message, 1));
    return;
  }
  await serve(loaded.config);
}

async function serve(config: Readonly<ResolvedConfig>): Promise<void> {
  let server;
  try {
    const { startServer } = await import('../main.js');
    server = await startServer(config);
  } catch (e) {
    fail((e as Error).message, 1);
  }
  server.app.log.info(`dashplane listening on ${server.url}`);
  const stop = (signal: string) => {
    server.app.log.info(`${signal} received, shutting down`);
    server.close().then(
      () => process.exit(0),
      (e: unknown) => fail(`shutdown failed: ${(e as Error).message}`, 1),
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

void main();
