/**
 * Part of the Store contract (test/store-contract.ts): every read gives back the JSON as it was
 * written, key order included. PostgreSQL's `jsonb` reorders keys (shorter first, then byte-wise),
 * which made a dashboard read from PostgreSQL differ from the same one on LevelDB and from what
 * its author sent; exports to Git and history diffs then churned after a migrate-store.
 */
import { expect } from 'chai';
import type { DumpItem, Envelope, ManagerEntry, Store, StoreEvent } from '../src/storage/store.js';
import type { StoreFixture } from './store-contract.js';

/** Keys in an order no sorting gives: longer before shorter, reverse byte order, nested too. */
function unsorted(name: string, version: number, updatedAt: string): Envelope {
  return {
    kind: 'Dashboard',
    // metadata as the server stamps it, then tags: not jsonb's order (name, tags, project, version, ...)
    metadata: { name, project: 'p', createdAt: '2026-01-01T00:00:00.000Z', updatedAt, version, tags: ['b', 'a'] },
    spec: { zeta: 1, alpha: { b: 1, a: 2 }, 'a-much-longer-key': [{ y: 1, x: { d: 0, c: 1 } }], k: 'v', version },
  };
}

export function describeKeyOrderContract(current: () => Store, fixture: () => StoreFixture): void {
  it('every read gives back the JSON as written, key order included (get, getText, list, listText, metadataOnly, getVersion, watch, managers, dump)', async () => {
    let store = current();
    const key = { kind: 'Dashboard', project: 'p', name: 'x' };
    const writer = { by: 'alice', manager: 'dashctl' };
    const v0 = unsorted('x', 0, '2026-01-01T00:00:00.000Z');
    const v1 = unsorted('x', 1, '2026-01-01T00:00:01.000Z');
    const r0 = await store.create(v0, { writer, history: { max: 5 } });
    await store.update(v1, { expectedVersion: 0, writer: { by: 'bob', manager: 'web-ui' }, history: { max: 5 } });
    const text = (o: unknown) => JSON.stringify(o);
    const expectRead = async (when: string) => {
      expect(text(await store.get(key)), `${when}: get`).to.equal(text(v1));
      const t = await store.getText(key);
      expect(t!.text.toString(), `${when}: getText`).to.equal(text(v1));
      expect(text(t!.metadata), `${when}: getText metadata`).to.equal(text(v1.metadata));
      expect((await store.list({ kind: 'Dashboard' })).map(text), `${when}: list`).to.deep.equal([text(v1)]);
      expect(
        (await store.listText({ kind: 'Dashboard' })).map((x) => x.text.toString()),
        `${when}: listText`,
      ).to.deep.equal([text(v1)]);
      expect(
        (await store.listText({ kind: 'Dashboard' })).map((x) => text(x.metadata)),
        `${when}: listText metadata`,
      ).to.deep.equal([text(v1.metadata)]);
      const meta = await store.list({ kind: 'Dashboard', metadataOnly: true });
      expect(meta.map(text), `${when}: metadataOnly list`).to.deep.equal([text({ kind: 'Dashboard', metadata: v1.metadata, spec: {} })]);
      expect(text(await store.getVersion(key, 0)), `${when}: getVersion 0`).to.equal(text(v0));
      expect(text(await store.getVersion(key, 1)), `${when}: getVersion 1`).to.equal(text(v1));
      const managers: ManagerEntry[] = [
        { version: 1, updatedAt: v1.metadata.updatedAt, updatedBy: 'bob', manager: 'web-ui' },
        { version: 0, updatedAt: v0.metadata.updatedAt, updatedBy: 'alice', manager: 'dashctl' },
      ];
      expect(text(await store.managers(key)), `${when}: managers`).to.equal(text(managers));
      const dumped: DumpItem[] = [];
      for await (const item of store.dump()) dumped.push(item);
      expect(dumped.slice(1).map(text), `${when}: dump`).to.deep.equal([
        text({ type: 'version', updatedBy: 'alice', manager: 'dashctl', object: v0 }),
        text({ type: 'version', updatedBy: 'bob', manager: 'web-ui', object: v1 }),
        text({ type: 'object', object: v1, managers }),
      ]);
      // the event log, replayed from the store (not the objects this process wrote)
      const ac = new AbortController();
      const seen: StoreEvent[] = [];
      for await (const e of store.watch({ since: r0 - 1, signal: ac.signal })) {
        seen.push(e);
        if (seen.length === 2) ac.abort();
      }
      expect(
        seen.map((e) => text(e.object)),
        `${when}: watch replay`,
      ).to.deep.equal([text(v0), text(v1)]);
    };
    await expectRead('as written');
    store = await fixture().reopen();
    await expectRead('after a reopen');
  });
}
