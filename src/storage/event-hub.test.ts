import { expect } from 'chai';
import { EventHub, replayThenLive } from './event-hub.js';
import type { StoreEvent } from './store.js';

const event = (revision: number): StoreEvent => ({
  type: 'ADDED',
  revision,
  object: { kind: 'Dashboard', metadata: { name: `d${revision}`, createdAt: '', updatedAt: '', version: 0 }, spec: {} },
});
/** Subscribers still registered (live iterators plus listeners). */
const subscribers = (hub: EventHub) => (hub as unknown as { subscribers: Set<unknown> }).subscribers.size;

describe('EventHub', () => {
  it('an aborted subscription ends even if its consumer never read from it (no queue left growing)', async () => {
    const hub = new EventHub();
    const ac = new AbortController();
    // a watch whose consumer went away before reading: the replay generator never started
    const watch = replayThenLive(hub.open(ac.signal), 0);
    hub.publish([event(1)]);
    expect(subscribers(hub)).to.equal(1);
    await watch.return(undefined);
    ac.abort();
    expect(subscribers(hub)).to.equal(0);
  });

  it('a subscription read until the abort delivers the events published before it', async () => {
    const hub = new EventHub();
    const ac = new AbortController();
    const live = hub.open(ac.signal);
    hub.publish([event(1), event(2)]);
    expect((await live.next()).value.revision).to.equal(1);
    ac.abort();
    expect((await live.next()).done).to.equal(true);
    expect(subscribers(hub)).to.equal(0);
  });
});
