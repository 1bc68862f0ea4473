#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { startServer } from '../main.js';

const USAGE = `usage: dashplane [--config FILE] [--listen HOST:PORT]

Starts the dashplane server. Configuration: the YAML file, then DASHPLANE_* environment
variables (e.g. DASHPLANE_DATABASE_LEVEL_PATH=/var/lib/dashplane), then --listen.`;

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs({
      options: { config: { type: 'string', short: 'c' }, listen: { type: 'string', short: 'l' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }).values;
  } catch (e) {
    console.error(`dashplane: ${(e as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  if (args.help) {
    console.log(USAGE);
    return;
  }
  let loaded;
  try {
    loaded = loadConfig({ file: args.config ?? process.env.DASHPLANE_CONFIG, listen: args.listen, env: process.env });
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`dashplane: ${e.message}`);
      process.exit(2);
    }
    throw e;
  }
  for (const w of loaded.warnings) console.error(`dashplane: warning: ${w}`);
  let server;
  try {
    server = await startServer(loaded.config);
  } catch (e) {
    console.error(`dashplane: ${(e as Error).message}`);
    process.exit(1);
  }
  server.app.log.info(`dashplane listening on ${server.url}`);
  const stop = (signal: string) => {
    server.app.log.info(`${signal} received, shutting down`);
    server.close().then(
      () => process.exit(0),
      (e: unknown) => {
        console.error(`dashplane: shutdown failed: ${(e as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

void main();
