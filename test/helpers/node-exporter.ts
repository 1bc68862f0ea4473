import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { freePort, stopChild } from './process.js';
import { waitFor } from './wait.js';

/** Debian's prometheus-node-exporter on 127.0.0.1: real node_* metrics for dashboards such as the Perses Demo. */
export interface RunningNodeExporter {
  /** host:port to scrape */
  target: string;
  stop(): Promise<void>;
}

/** $NODE_EXPORTER_BIN, else Debian's. */
export const NODE_EXPORTER_BIN = process.env.NODE_EXPORTER_BIN ?? '/usr/bin/prometheus-node-exporter';

export async function startNodeExporter(): Promise<RunningNodeExporter> {
  try {
    accessSync(NODE_EXPORTER_BIN, constants.X_OK);
  } catch {
    throw new Error(`${NODE_EXPORTER_BIN} was not found. .ci/run installs the Debian package prometheus-node-exporter; install it the same way (or set NODE_EXPORTER_BIN).`);
  }
  const port = await freePort();
  const target = `127.0.0.1:${port}`;
  const child = spawn(NODE_EXPORTER_BIN, [`--web.listen-address=${target}`, '--log.level=warn'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let out = '';
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const stop = () => stopChild(child);
  try {
    await waitFor(
      'node exporter answering /metrics',
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus-node-exporter exited (${child.exitCode}):\n${out}`);
        const res = await fetch(`http://${target}/metrics`).catch(() => undefined);
        return res?.ok === true;
      },
      10_000,
      100,
    );
  } catch (e) {
    await stop();
    throw e;
  }
  return { target, stop };
}
