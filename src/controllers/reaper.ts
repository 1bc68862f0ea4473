import { SYSTEM } from '../access/authorizer.js';
import { MANAGER } from '../resources/managers.js';
import { ApiError } from '../errors.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { KindRegistry } from '../kinds/registry.js';
import { parseDuration } from '../lib/duration.js';
import { getPath } from '../lib/object-path.js';
import type { ResourceService } from '../resources/service.js';
import type { Envelope, ObjectStore, StoreEvent } from '../storage/store.js';

/** setTimeout's limit; longer waits are re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Due {
  d: KindDescriptor;
  project: string;
  name: string;
  version: number;
  updatedAt: string;
  at: number;
}

/**
 * Deletes objects whose ttl has passed (kinds with `ttlPath`), through the same delete path as
 * everything else, with the version it saw: an object extended or re-created meanwhile survives.
 * A timer waits for the nearest expiry; store events keep the schedule current; a periodic sweep
 * is the safety net. Objects already expired at start are deleted at once.
 */
export class Reaper {
  private readonly due = new Map<string, Due>();
  private readonly kinds: Map<string, KindDescriptor>;
  private timer?: NodeJS.Timeout;
  private sweeper?: NodeJS.Timeout;
  private unlisten?: () => void;
  private running = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly o: {
      store: ObjectStore;
      registry: KindRegistry;
      service: ResourceService;
      sweepMs: number;
      log: (msg: string, err?: unknown) => void;
      onDeleted?: () => void;
      now?: () => number;
    },
  ) {
    this.kinds = new Map(
      o.registry
        .all()
        .filter((d) => d.ttlPath)
        .map((d) => [d.kind, d]),
    );
  }

  async start(): Promise<void> {
    if (this.kinds.size === 0) return;
    this.unlisten = this.o.store.onEvent((e) => this.onEvent(e));
    await this.sweep();
    this.sweeper = setInterval(() => void this.sweep(), this.o.sweepMs).unref();
  }

  stop(): Promise<void> {
    this.stopped = true;
    this.unlisten?.();
    clearTimeout(this.timer);
    clearInterval(this.sweeper);
    return this.running;
  }

  /** Reloads the whole schedule from the store. */
  async sweep(): Promise<void> {
    for (const d of this.kinds.values()) for (const obj of await this.o.store.list({ kind: d.kind })) this.schedule(d, obj);
    this.arm();
  }

  private onEvent(e: StoreEvent): void {
    const d = this.kinds.get(e.object.kind);
    if (!d) return;
    if (e.type === 'DELETED') this.due.delete(idOf(e.object));
    else this.schedule(d, e.object);
    this.arm();
  }

  private schedule(d: KindDescriptor, obj: Envelope): void {
    const ttl = parseDuration(getPath(obj, d.ttlPath!) as string);
    if (ttl === undefined) return;
    this.due.set(idOf(obj), {
      d,
      project: obj.metadata.project ?? '',
      name: obj.metadata.name,
      version: obj.metadata.version,
      updatedAt: obj.metadata.updatedAt,
      at: Date.parse(obj.metadata.updatedAt) + ttl,
    });
  }

  /** One timer, on the nearest expiry. */
  private arm(): void {
    clearTimeout(this.timer);
    if (this.stopped || this.due.size === 0) return;
    let next = Infinity;
    for (const x of this.due.values()) next = Math.min(next, x.at);
    const wait = Math.min(Math.max(next - this.now(), 0), MAX_TIMER_MS);
    this.timer = setTimeout(() => {
      this.running = this.running.then(() => this.reap()).catch((e: unknown) => this.o.log('reaper pass failed', e));
    }, wait);
    this.timer.unref();
  }

  private async reap(): Promise<void> {
    const now = this.now();
    for (const [id, x] of [...this.due]) {
      if (x.at > now || this.stopped) continue;
      this.due.delete(id);
      try {
        await this.o.service.delete(SYSTEM, x.d, x.d.scope === 'project' ? x.project : undefined, x.name, {
          ifMatch: x.version,
          ifUpdatedAt: x.updatedAt,
          evenIfExpired: true,
          manager: MANAGER.dashplane,
        });
        this.o.onDeleted?.();
      } catch (e) {
        // changed meanwhile (extended, re-created) or already gone: its new state is scheduled by its event
        if (!(e instanceof ApiError && (e.reason === 'PreconditionFailed' || e.reason === 'NotFound')))
          this.o.log(`cannot delete expired ${x.d.kind} "${x.name}"`, e);
      }
    }
    this.arm();
  }

  private now(): number {
    return (this.o.now ?? Date.now)();
  }
}

function idOf(obj: Envelope): string {
  return `${obj.kind}\u0000${obj.metadata.project ?? ''}\u0000${obj.metadata.name}`;
}
