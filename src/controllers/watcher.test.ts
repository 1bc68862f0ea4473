import { expect } from 'chai';
import { tempDir } from '../../test/helpers/server.js';
import { spyOn } from '../../test/helpers/store-spy.js';
import { waitFor } from '../../test/helpers/wait.js';
import { obj } from '../../test/store-contract.js';
import { ANONYMOUS, allowAll } from '../access/authorizer.js';
import { buildKindRegistry } from '../kinds/index.js';
import { LevelStore } from '../storage/level-store.js';
import type { StoreEvent } from '../storage/store.js';
import { type WatchEvent, Watcher } from './watcher.js';

describe('Watcher', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: LevelStore;

  beforeEach(async () => {
    dir = tempDir();
    store = new LevelStore(dir.path);
    await store.open();
  });
  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  it("a BOOKMARK never claims a revision whose event has not reached the stream yet (another replica's commit, not yet notified): resuming from it loses nothing", async () => {
    // the store's events reach the watcher only when the test lets them through, as another
    // replica's commits reach this one only once notified; the store's revision is ahead meanwhile
    let release: () => void = () => undefined;
    let held = new Promise<void>((r) => (release = r));
    const lagging = spyOn(store, 'watch', (watch, opts) =>
      (async function* () {
        for await (const e of watch(opts) as AsyncIterable<StoreEvent>) {
          await held;
          yield e;
        }
      })(),
    );
    const registry = buildKindRegistry();
    const watcher = new Watcher({
      store: lagging,
      registry,
      authorizer: allowAll,
      bookmarkMs: 50,
      backlog: { maxEvents: 100, maxBytes: 1_000_000 },
    });
    await store.create(obj('Project', '', 'p'));
    const life = new AbortController();
    const events: WatchEvent[] = [];
    const stream = await watcher.open(ANONYMOUS, registry.byName('Dashboard')!, {}, life);
    const reading = (async () => {
      for await (const e of stream) events.push(e);
    })();
    const written = await store.create(obj('Dashboard', 'p', 'late'));
    expect(await store.revision()).to.equal(written);
    const bookmark = (await waitFor('a BOOKMARK while the event is held', () => events.find((e) => e.type === 'BOOKMARK'), 5_000))!;
    expect(bookmark.revision, 'the BOOKMARK claims only what the stream has seen').to.be.below(written);
    release();
    held = Promise.resolve();
    await waitFor('the held event', () => events.some((e) => e.type === 'ADDED' && e.revision === written), 5_000);
    // a client that left at the BOOKMARK and resumes from it gets the event
    const resumed: WatchEvent[] = [];
    const again = new AbortController();
    const readingAgain = (async () => {
      for await (const e of await watcher.open(ANONYMOUS, registry.byName('Dashboard')!, { since: bookmark.revision }, again))
        resumed.push(e);
    })();
    await waitFor('the event, resumed from the BOOKMARK', () => resumed.some((e) => e.type === 'ADDED' && e.revision === written), 5_000);
    life.abort();
    again.abort();
    await Promise.all([reading, readingAgain]);
  });
});
