import { spawn } from 'node:child_process';
import { freePort, stopChild } from './process.js';
import { requireProgram } from './programs.js';
import { waitFor } from './wait.js';

/** Debian's prometheus-node-exporter on 127.0.0.1: real node_* metrics for dashboards such as the Perses Demo. */
export interface RunningNodeExporter {
  /** host:port to scrape */
  target: string;
  stop(): Promise<void>;
}

export async function startNodeExporter(): Promise<RunningNodeExporter> {
  const bin = requireProgram('node-exporter');
  const port = await freePort();
  const target = `127.0.0.1:${port}`;
  const child = spawn(bin, [`--web.listen-address=${target}`, '--log.level=warn'], { stdio: ['ignore', 'ignore', 'pipe'] });
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
