import type { AuditDraft, AuditNotice, AuditPage, AuditQuery } from './audit-types.js';

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

/**
 * An object as the JSON text the store holds, and its metadata: what a read answers without
 * parsing and re-serialising the spec (a 10 KB dashboard costs more to parse than to serve).
 */
export interface StoredText {
  /** The object's JSON (an Envelope), as a string or as UTF-8 bytes (sent without encoding them again). */
  text: string | Buffer;
  metadata: Metadata;
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
  project?: string | undefined;
  /** Only names starting with this. */
  namePrefix?: string;
  /** Resume strictly after this position (pagination). */
  after?: { project: string; name: string };
  /** At most this many items. */
  limit?: number;
  /** Only kind and metadata are needed: items may come back with `spec: {}` (read from an index, not the bodies). */
  metadataOnly?: boolean;
}

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One change, in store-wide revision order. */
export interface StoreEvent {
  type: EventType;
  revision: number;
  object: Envelope;
}

/** What `Store.watch` is asked for. */
export interface WatchOptions {
  since?: number;
  signal: AbortSignal;
  backlog?: WatchBacklog;
}

/**
 * How far a watch's consumer may fall behind the live events. When a write's events arrive while
 * more than either bound of earlier writes' events still wait, the waiting events are dropped,
 * `overflow` is called (once, synchronously) and the events end: the consumer resumes from the
 * last revision it took. One write's events never pass the bound by themselves (a project's
 * deletion with its objects). The events of the log replayed for `since` are read as the
 * consumer takes them and never wait.
 */
export interface WatchBacklog {
  maxEvents: number;
  /** Of the waiting events' objects as JSON (`jsonOf`: made once per object, shared with whoever sends it). */
  maxBytes: number;
  overflow(): void;
}

export interface DeleteOptions {
  expectedVersion?: number;
  /** Also require this updatedAt: tells a re-created object (version 0 again) from the one seen. */
  expectedUpdatedAt?: string;
  /** Also delete, in the same atomic write, every object of these kinds inside project `project` (and their history). */
  children?: { project: string; kinds: readonly string[] };
  /** Audit entries committed in the same atomic write. */
  audit?: readonly AuditDraft[];
}

/** Who made a write, and through what. */
export interface Writer {
  /** The user name, "anonymous", or "dashplane" for the server's own writes. */
  by: string;
  /** The field manager: the client or component that made it (`dashctl`, `web-ui`, `api`, `restore`...). */
  manager: string;
}

/** Keep this write in the object's version history (in the same atomic write); its author is the write's `writer`. */
export interface HistoryOptions {
  /** Versions kept per object; older ones are dropped. */
  max: number;
  /** On create: continue the history of an earlier object of this name (a restore) instead of starting afresh. */
  continues?: boolean;
}

/** One entry of an object's history. */
export interface VersionEntry {
  version: number;
  updatedAt: string;
  updatedBy: string;
  /** The field manager of that write ("unknown" for entries written before managers were recorded). */
  manager: string;
}

/** An object that is gone but whose history is kept (a restore brings it back): its name and last version. */
export interface DeletedEntry extends VersionEntry {
  name: string;
  /** The last version's `spec.display.name`, when it has one: lists show what users call it rather than its name. */
  title?: string;
}

/** The latest write of one field manager to an object: one entry of its managers record. */
export type ManagerEntry = VersionEntry;

/** Field managers kept per object (the most recent ones): enough to tell who wrote last and whether a tool wrote before. */
export const MAX_MANAGERS = 10;

/**
 * The managers record after a write by `writer` of `obj`: its entry first, then the other
 * managers' latest writes, newest first, at most MAX_MANAGERS.
 */
export function recordWrite(record: readonly ManagerEntry[], obj: Envelope, writer: Writer): ManagerEntry[] {
  const entry = { version: obj.metadata.version, updatedAt: obj.metadata.updatedAt, updatedBy: writer.by, manager: writer.manager };
  return [entry, ...record.filter((e) => e.manager !== writer.manager)].slice(0, MAX_MANAGERS);
}

/** What a create or an update records besides the object itself. */
export interface WriteRecordOptions {
  /** Who made it: kept in the object's managers record (and its history entry). */
  writer?: Writer;
  history?: HistoryOptions;
  /** The managers record to store as it is, instead of the one `writer` makes (copying a store). */
  managers?: readonly ManagerEntry[];
  /** Audit entries committed in the same atomic write. */
  audit?: readonly AuditDraft[];
}

/** Options of `Store.create`: a `parent` that must exist, companions created `also` in the same atomic write. */
export interface CreateOptions extends WriteRecordOptions {
  parent?: ObjectKey;
  also?: readonly Envelope[];
}

/** Options of `Store.update`. */
export interface UpdateOptions extends WriteRecordOptions {
  expectedVersion: number;
}

/**
 * One record of `Store.dump`: first the revision of the snapshot, then for each object its kept
 * history entries (oldest first, each the object as written at that version) and the object.
 */
export type DumpItem =
  | { type: 'revision'; revision: number }
  | { type: 'version'; updatedBy: string; manager?: string; object: Envelope }
  | { type: 'object'; object: Envelope; managers: ManagerEntry[] };

/** One kind a search looks into, and where: what the caller may read, when that names places. */
export interface SearchScope {
  kind: string;
  /** Only objects in these projects (absent: in every project). */
  projects?: readonly string[];
  /** Only objects of these names (absent: any name). */
  names?: readonly string[];
}

/** A search as a store answers it from its index: candidates, not checked matches. */
export interface SearchQuery {
  /**
   * The query's words (lowercased), each with the terms it is looked up by (`wordTerms` of
   * src/lib/search-terms.ts, at least one): an object matching the word holds, for each, a term
   * starting with it.
   */
  words: readonly { word: string; terms: readonly string[] }[];
  scopes: readonly SearchScope[];
}

/** An object that may match a search, and the most it can score (its score once checked is at most that). */
export interface SearchCandidate {
  kind: string;
  text: StoredText;
  bound: number;
}

/**
 * The objects: reads, writes, the store-wide revision and the events that follow it, and the
 * search index kept by every write. What most of the server needs (services, authentication,
 * controllers).
 */
export interface ObjectStore {
  get(key: ObjectKey): Promise<Envelope | undefined>;
  list(query: ListQuery): Promise<Envelope[]>;
  /**
   * `get`, as JSON text. A store may answer with the same (frozen) object while the stored object
   * is unchanged, never with one it answered before a change: callers may keep what they derive
   * from a text by its identity (the proxy does). A shared store first calls `sync` (as ReadCache
   * does) unless `synced`: the caller has just called it (Principal.synced), or only checks what
   * a write checks again atomically.
   */
  getText(key: ObjectKey, opts?: { synced?: boolean | undefined }): Promise<StoredText | undefined>;
  /** `list` (without metadataOnly), as JSON texts. */
  listText(query: ListQuery): Promise<StoredText[]>;
  /**
   * Stores a new object; with `parent`, only if that object exists at the same instant; with
   * `also`, those new objects too, in the same atomic write (AlreadyExists if any exists).
   */
  create(obj: Envelope, opts?: CreateOptions): Promise<number>;
  /**
   * Replaces an object whose stored version equals `expectedVersion`. Without `writer` (or
   * `managers`) its managers record is left as it is.
   */
  update(obj: Envelope, opts: UpdateOptions): Promise<number>;
  /** Deletes an object (and optionally its children) atomically; returns the revision. */
  delete(key: ObjectKey, opts?: DeleteOptions): Promise<number>;
  /** The revision of the last write (0 for an empty store). */
  revision(): Promise<number>;
  /** A list and the revision it reflects, taken together (no write in between). */
  snapshot(query: ListQuery): Promise<{ items: Envelope[]; revision: number }>;
  /**
   * Events with a revision above `since` (default: from now on), in order, each once, until
   * `signal` aborts. ApiError Gone when `since` is older than the retained event log. With
   * `backlog`, live events waiting for the consumer are bounded (see WatchBacklog).
   */
  watch(opts: WatchOptions): AsyncIterable<StoreEvent>;
  /** Calls `listener` synchronously for every event, in revision order: this process's commits and (shared stores) other replicas' (cache invalidation). */
  onEvent(listener: (e: StoreEvent) => void): () => void;
  /**
   * Resolves once every event committed before the call, by any replica, has reached the
   * `onEvent` listeners: a cache those events invalidate is then as fresh as the store.
   */
  sync(): Promise<void>;
  /**
   * Runs `fn` while no other caller holds `key`, in this process and (for shared stores) on every
   * replica: for read-then-write rules that span objects (one default datasource per scope).
   */
  exclusive<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /**
   * The revision of the ADDED event of the object now stored under `key` (its creation), or
   * undefined when there is none. 0 for an object whose creation is older than the retained event
   * log and was never recorded (a store written by an older dashplane): no retained event of an
   * earlier object of that key can then exist.
   */
  createdRevision(key: ObjectKey): Promise<number | undefined>;
  /**
   * The objects of the scopes that may match every word of `q`, from the store's search index
   * (kept by every write, in the same atomic write as the object), without reading the others:
   * each with the most it can score (search-terms.ts: CLASS_WEIGHT of the best place each word
   * is found in, EXACT_BONUS for a word that is a whole name or title), highest first, equal ones
   * in key order (kind, project, name). Every object matching every word is among them; others
   * may be too (the caller checks). Objects are read as the caller iterates. Undefined when the
   * store has no index of these kinds, or while it is being built (the caller reads the objects).
   */
  search(q: SearchQuery): Promise<AsyncIterable<SearchCandidate> | undefined>;
}

/** What the store keeps about objects besides the objects: their field managers and version history. */
export interface HistoryStore {
  /**
   * The managers record of the object stored now under `key`: the latest write of each field
   * manager, newest first ([] when it has none, or does not exist). Deleted with the object.
   */
  managers(key: ObjectKey): Promise<ManagerEntry[]>;
  /** History entries of an object (present or deleted), newest first. */
  listVersions(key: ObjectKey): Promise<VersionEntry[]>;
  /** The object as it was at `version`, if kept. */
  getVersion(key: ObjectKey, version: number): Promise<Envelope | undefined>;
  /** Deleted objects of `kind` in `project` ("" for global kinds) whose history is kept, by name, each with its last version. */
  listDeleted(q: { kind: string; project: string }): Promise<DeletedEntry[]>;
}

/** The audit log: entries appended on their own or with a write (`audit` options of ObjectStore's writes). */
export interface AuditStore {
  /** Appends audit entries (logins, denials) on their own; a write's entries go with the write (`audit` options). */
  appendAudit(entries: readonly AuditDraft[]): Promise<void>;
  /** A page of the audit log (see AuditQuery). */
  listAudit(q: AuditQuery): Promise<AuditPage>;
  /** The id of the last audit entry (0 for none). */
  lastAuditId(): Promise<number>;
  /** Deletes the audit entries older than `before` (RFC 3339); returns how many. */
  pruneAudit(before: string): Promise<number>;
  /** Calls `listener` after every audit commit: this process's (with the entries) and other replicas'. */
  onAudit(listener: (n: AuditNotice) => void): () => void;
}

/** The store as a whole: its life cycle, health, a consistent dump of everything (backups), offline rewrites. */
export interface MaintenanceStore {
  /** Open the store; rejects with a clear message when the data is locked or unreadable. */
  open(): Promise<void>;
  close(): Promise<void>;
  /** Throws when the store cannot serve (health check). */
  ping(): Promise<void>;
  /**
   * Everything the store holds, read from one consistent snapshot while writes go on (backups):
   * the snapshot's revision, then objects of every kind in key order, each preceded by its kept
   * history entries. The history of deleted objects is left out.
   */
  dump(): AsyncIterable<DumpItem>;
  /**
   * Rewrites the objects held by the retained event log, for an administrator's command run
   * while no server uses the store (`secrets rotate`: no copy of a value sealed with a retired key
   * may outlive the rotation there). `change` gets each event's object and returns its
   * replacement, or undefined to keep it; revisions, types and order are unchanged. Returns how
   * many events were rewritten. LevelStore then compacts its files, so the replaced values are
   * gone from the disk too.
   */
  rewriteLoggedObjects(change: (obj: Envelope) => Envelope | undefined): Promise<number>;
}

/**
 * The storage contract every driver implements, the sum of its parts (see
 * test/store-contract.ts for the shared suite). Code that uses one part takes that part only.
 */
export interface Store extends ObjectStore, HistoryStore, AuditStore, MaintenanceStore {}

/** The key of an envelope. */
export function keyOf(obj: Envelope): ObjectKey {
  return { kind: obj.kind, project: obj.metadata.project ?? '', name: obj.metadata.name };
}
