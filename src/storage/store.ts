/**
 * The storage interface every driver implements (LevelStore, later PostgresStore).
 * Objects are untyped envelopes keyed by (kind, project, name); `project` is "" for global kinds.
 * Drivers translate their own errors into `ApiError` inside their file:
 *  - create of an existing key: AlreadyExists
 *  - update/delete of a missing key: NotFound
 *  - expectedVersion differs from the stored version: Conflict
 *  - create with a `parent` that does not exist: NotFound (reason), message names the parent
 */

/** Metadata every stored object carries. */
export interface Metadata {
  name: string;
  project?: string;
  createdAt: string;
  updatedAt: string;
  version: number;
  tags?: string[];
}

/** A stored object: kind + metadata + spec; the store never looks inside `spec`. */
export interface Envelope {
  kind: string;
  metadata: Metadata;
  spec: unknown;
}

/** Identity of one object. */
export interface ObjectKey {
  kind: string;
  /** "" for global kinds. */
  project: string;
  name: string;
}

/** A list request. Results are sorted by project, then name, byte-wise ascending. */
export interface ListQuery {
  kind: string;
  /** Only this project; absent = every project (or the global scope for global kinds). */
  project?: string;
  /** Only names starting with this. */
  namePrefix?: string;
  /** Resume strictly after this position (pagination). */
  after?: { project: string; name: string };
  /** At most this many items. */
  limit?: number;
}

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One change, in store-wide revision order. */
export interface StoreEvent {
  type: EventType;
  revision: number;
  object: Envelope;
}

export interface DeleteOptions {
  expectedVersion?: number;
  /** Also delete, in the same atomic write, every object of these kinds inside project `project`. */
  children?: { project: string; kinds: readonly string[] };
}

/** The storage contract (see test/store-contract.ts for the shared suite). */
export interface Store {
  /** Open the store; rejects with a clear message when the data is locked or unreadable. */
  open(): Promise<void>;
  close(): Promise<void>;
  /** Throws when the store cannot serve (health check). */
  ping(): Promise<void>;
  get(key: ObjectKey): Promise<Envelope | undefined>;
  list(query: ListQuery): Promise<Envelope[]>;
  /**
   * Stores a new object; with `parent`, only if that object exists at the same instant; with
   * `also`, those new objects too, in the same atomic write (AlreadyExists if any exists).
   */
  create(obj: Envelope, opts?: { parent?: ObjectKey; also?: readonly Envelope[] }): Promise<number>;
  /** Replaces an object whose stored version equals `expectedVersion`. */
  update(obj: Envelope, opts: { expectedVersion: number }): Promise<number>;
  /** Deletes an object (and optionally its children) atomically; returns the revision. */
  delete(key: ObjectKey, opts?: DeleteOptions): Promise<number>;
  /** The revision of the last write (0 for an empty store). */
  revision(): Promise<number>;
  /**
   * Events after `since` (default: from now on) until `signal` aborts.
   * Issue 5 adds the persisted event log; for now only live events are delivered.
   */
  watch(opts: { since?: number; signal: AbortSignal }): AsyncIterable<StoreEvent>;
}

/** The key of an envelope. */
export function keyOf(obj: Envelope): ObjectKey {
  return { kind: obj.kind, project: obj.metadata.project ?? '', name: obj.metadata.name };
}
