/**
 * Fills a store with P11's corpus through the Store interface (what the server writes, without
 * a million HTTP round trips): projects, then dashboards in chunks written concurrently (the
 * stores commit them in groups). Reports each chunk's rate.
 */
import type { Envelope, Store } from '../src/storage/store.js';
import { corpusDashboard, PER_PROJECT, projectName } from './p11-corpus.js';

const CHUNK = 1_000;

/** Creates dashboards [from, to) of the corpus (and their projects); returns creates per second of each `report` dashboards. */
export async function seed(
  store: Store,
  from: number,
  to: number,
  o: { report?: number; inFlight?: number; log?: (line: string) => void } = {},
): Promise<number[]> {
  const at = new Date().toISOString();
  const meta = (name: string, project?: string) => ({ name, ...(project ? { project } : {}), createdAt: at, updatedAt: at, version: 0 });
  const history = { max: 50 };
  const writer = { by: 'bench', manager: 'bench' };
  const rates: number[] = [];
  const every = o.report ?? to - from;
  let mark = performance.now();
  let since = from;
  for (let p = Math.floor(from / PER_PROJECT); p * PER_PROJECT < to; p++) {
    if (p * PER_PROJECT >= from || from % PER_PROJECT !== 0) {
      if (!(await store.getText({ kind: 'Project', project: '', name: projectName(p) }))) {
        await store.create(
          { kind: 'Project', metadata: meta(projectName(p)), spec: { display: { name: `Team ${p}` } } },
          { writer, history },
        );
      }
    }
  }
  const inFlight = o.inFlight ?? 64;
  for (let i = from; i < to; i += CHUNK) {
    const end = Math.min(to, i + CHUNK);
    let next = i;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < end) {
          const n = next++;
          const d = corpusDashboard(n);
          await store.create(
            {
              ...d,
              metadata: { ...meta(d.metadata.name, d.metadata.project), ...(d.metadata.tags ? { tags: d.metadata.tags } : {}) },
            } as Envelope,
            {
              parent: { kind: 'Project', project: '', name: d.metadata.project },
              history,
              writer,
            },
          );
        }
      }),
    );
    if (end - since >= every || end === to) {
      const now = performance.now();
      rates.push(((end - since) * 1000) / (now - mark));
      o.log?.(`${end.toLocaleString('en-US')} dashboards: ${Math.round(rates[rates.length - 1])} creates/s`);
      mark = now;
      since = end;
    }
  }
  return rates;
}
