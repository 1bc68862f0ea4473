import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, watch, type FSWatcher } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KindRegistry } from '../../kinds/registry.js';
import type { LogFn } from '../../lib/log-fn.js';
import type { ResourceService } from '../../resources/service.js';
import type { Store } from '../../storage/store.js';
import { Applier } from './apply.js';
import { candidateOf, keyText, ordered, type Found } from './candidates.js';
import { GitCheckout } from './git-checkout.js';
import { FolderReader, type ManifestParsers } from './read-folder.js';
import { placeOf, problemKey, type ProvisioningProblem, type SourceStatus } from './status.js';

/** A Git source as the configuration gives it, durations in milliseconds. */
export interface GitSourceOptions {
  url: string;
  ref?: string;
  path: string;
  interval: string;
  intervalMs: number;
  username: string;
  passwordFile?: string;
}

/** What the Provisioner is given by the composition root: the write pipeline, the parsers, the sources. */
export interface ProvisionerOptions {
  service: ResourceService;
  store: Store;
  registry: KindRegistry;
  parsers: ManifestParsers;
  /** The largest file read (http.body_limit: a file is read like a request body). */
  maxFileBytes: number;
  folders: readonly string[];
  interval: string;
  intervalMs: number;
  /** Read a folder again shortly after a file in it changes. */
  watch: boolean;
  git: readonly GitSourceOptions[];
  /** Where Git sources are cloned; unset: a temporary directory of this process, removed at stop. */
  workDir?: string;
  gitTimeoutMs: number;
  log: LogFn;
  /** Called for every write made (metrics). */
  onWrite?(source: string, action: 'created' | 'updated' | 'taken-back'): void;
}

/** How long a folder is left to settle after a change before it is read (as Perses' watcher). */
const WATCH_DEBOUNCE_MS = 200;

interface Source {
  index: number;
  status: SourceStatus;
  intervalMs: number;
  root: string;
  reader: FolderReader;
  checkout?: GitCheckout;
  /** The objects it held at its last read. */
  keys: Set<string>;
  timer?: NodeJS.Timeout;
  watcher?: FSWatcher;
}

/**
 * Provisioning (docs/provisioning.md): the resources of folders and Git repositories, written
 * through the ResourceService at start and again every interval (see Applier). Passes run one at
 * a time; sources due together are applied in one pass, in the order of phaseOf, so the projects
 * a source holds are written before their resources. A source is never read while another pass
 * runs, a failure never stops the loop, and nothing is deleted because a file or a fetch is gone.
 */
export class Provisioner {
  private readonly sources: Source[];
  private readonly applier: Applier;
  private readonly due = new Set<Source>();
  private readonly abort = new AbortController();
  private running?: Promise<void> | undefined;
  private stopped = false;
  /** The temporary directory of the clones, when no workDir is configured. */
  private readonly tempDir?: string;

  constructor(private readonly o: ProvisionerOptions) {
    this.applier = new Applier(o);
    const reader = (confine: boolean) => new FolderReader({ parsers: o.parsers, maxBytes: o.maxFileBytes, confine });
    const base = { passes: 0, files: 0, objects: 0, problems: [] };
    const folders = o.folders.map((folder) => ({
      status: { source: folder, type: 'folder' as const, interval: o.interval, ...base },
      intervalMs: o.intervalMs,
      root: folder,
      reader: reader(false),
    }));
    // made at start (and only then): a name nobody can guess, created by this process alone
    if (o.git.length && !o.workDir) this.tempDir = join(tmpdir(), `dashplane-git-${randomBytes(8).toString('hex')}`);
    const workDir = o.workDir ?? this.tempDir!;
    const git = o.git.map((g) => {
      const checkout = new GitCheckout({
        url: g.url,
        ...(g.ref ? { ref: g.ref } : {}),
        workDir,
        timeoutMs: o.gitTimeoutMs,
        username: g.username,
        ...(g.passwordFile ? { passwordFile: g.passwordFile } : {}),
      });
      const source = `git:${g.url}#${g.ref ?? 'HEAD'}${g.path ? `:${g.path}` : ''}`;
      return {
        status: { source, type: 'git' as const, interval: g.interval, ...base },
        intervalMs: g.intervalMs,
        root: join(checkout.dir, g.path),
        reader: reader(true),
        checkout,
      };
    });
    this.sources = [...folders, ...git].map((s, index) => ({
      ...s,
      index,
      keys: new Set<string>(),
      status: { ...s.status, writes: { created: 0, updated: 0, takenBack: 0 }, problems: [] },
    }));
  }

  /** Starts the first pass of every source (in the background) and their timers. */
  start(): void {
    if (!this.sources.length) return;
    if (this.tempDir) mkdirSync(this.tempDir, { mode: 0o700 });
    const folders = this.sources.filter((s) => !s.checkout).length;
    this.o.log(
      'info',
      `provisioning from ${folders} folder(s) and ${this.sources.length - folders} Git repositories, as field manager provisioning`,
    );
    for (const s of this.sources) {
      this.due.add(s);
      if (this.o.watch && !s.checkout) this.watchFolder(s);
    }
    this.kick();
  }

  /** Stops the timers and watchers, stops a running git, and waits for the pass under way to end. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    for (const s of this.sources) {
      clearTimeout(s.timer);
      s.watcher?.close();
    }
    await this.running;
    if (this.tempDir) rmSync(this.tempDir, { recursive: true, force: true });
  }

  /** Every source's last pass. */
  status(): SourceStatus[] {
    return this.sources.map((s) => structuredClone(s.status));
  }

  private kick(): void {
    if (this.running || this.stopped) return;
    this.running = (async () => {
      while (this.due.size && !this.stopped) {
        const batch = [...this.due].sort((a, b) => a.index - b.index);
        this.due.clear();
        try {
          await this.pass(batch);
        } catch (e) {
          this.o.log('error', 'a provisioning pass failed', e);
        }
        for (const s of batch) this.schedule(s);
      }
    })().finally(() => (this.running = undefined));
  }

  private schedule(s: Source): void {
    if (this.stopped) return;
    clearTimeout(s.timer);
    s.timer = setTimeout(() => {
      this.due.add(s);
      this.kick();
    }, s.intervalMs).unref();
  }

  private watchFolder(s: Source): void {
    let debounce: NodeJS.Timeout | undefined;
    try {
      s.watcher = watch(s.root, { recursive: true, persistent: false }, () => {
        clearTimeout(debounce);
        debounce = setTimeout(() => {
          this.due.add(s);
          this.kick();
        }, WATCH_DEBOUNCE_MS).unref();
      });
      s.watcher.on('error', (e) =>
        this.o.log(
          'warn',
          `provisioning: ${s.status.source}: no longer watched for changes (${(e as Error).message}); read every ${s.status.interval}`,
        ),
      );
    } catch (e) {
      this.o.log(
        'warn',
        `provisioning: ${s.status.source}: cannot be watched for changes (${(e as Error).message}); read every ${s.status.interval}`,
      );
    }
  }

  /** Reads the sources, then writes what they hold in phase order, then records what happened. */
  private async pass(batch: Source[]): Promise<void> {
    const started = Date.now();
    const writesBefore = new Map(batch.map((s) => [s, { ...s.status.writes }]));
    const found: Found[] = [];
    const problems = new Map<Source, Omit<ProvisioningProblem, 'since'>[]>(batch.map((s) => [s, []]));
    for (const s of batch) {
      if (s.checkout) {
        try {
          s.status.commit = await s.checkout.sync(this.abort.signal);
        } catch (e) {
          // the objects stay as they are; the last good checkout is not applied again
          problems.get(s)!.push({ type: 'fetch', message: `${(e as Error).message}; the objects it provisioned are kept as they are` });
          continue;
        }
      }
      const read = await s.reader.read(s.root, () => this.stopped);
      for (const p of read.problems)
        problems.get(s)!.push({
          type: 'read',
          ...(p.file ? { file: p.file } : {}),
          ...(p.line !== undefined ? { line: p.line } : {}),
          message: p.message,
        });
      const mine = read.documents.map((doc) => ({ source: s.index, doc, ...candidateOf(this.o.registry, doc) }));
      s.keys = new Set(mine.flatMap((f) => (f.candidate ? [keyText(f.candidate)] : [])));
      Object.assign(s.status, { files: read.files, objects: read.documents.length });
      found.push(...mine);
    }
    const where = (f: Found) => `${this.sources[f.source].status.source} ${placeOf(placeFields(f))}`;
    const claimed = (index: number, key: string) => this.sources.find((o) => o.index < index && o.keys.has(key))?.status.source;
    await this.o.store.sync();
    for (const f of ordered(found, claimed, where)) {
      if (this.stopped) return;
      const s = this.sources[f.source];
      if (f.candidate && !f.problem) {
        await new Promise((r) => setImmediate(r));
        const r = await this.applier.apply(f.candidate);
        if (r.outcome === 'problem') f.problem = r;
        else if (r.outcome !== 'unchanged' && r.outcome !== 'raced') this.wrote(s, r.outcome);
      }
      if (f.problem)
        problems.get(s)!.push({
          ...placeFields(f),
          ...(f.candidate ? { object: f.candidate.label } : {}),
          type: f.problem.type,
          message: f.problem.message,
        });
    }
    if (this.stopped) return;
    for (const s of batch) this.record(s, problems.get(s)!, started, writesBefore.get(s)!);
  }

  private wrote(s: Source, action: 'created' | 'updated' | 'taken-back'): void {
    const w = s.status.writes;
    if (action === 'created') w.created++;
    else if (action === 'updated') w.updated++;
    else w.takenBack++;
    this.o.onWrite?.(s.status.source, action);
  }

  /** The pass's problems become the source's; the new ones are logged (once while they last), and so are the pass's writes. */
  private record(s: Source, now: Omit<ProvisioningProblem, 'since'>[], started: number, writesBefore: SourceStatus['writes']): void {
    const w = s.status.writes;
    const made = [
      ['created', w.created - writesBefore.created],
      ['updated', w.updated - writesBefore.updated],
      ['taken back', w.takenBack - writesBefore.takenBack],
    ].filter(([, n]) => n);
    if (made.length)
      this.o.log(
        'info',
        `provisioning: ${s.status.source}${s.status.commit ? ` (commit ${s.status.commit.slice(0, 12)})` : ''}: ${made.map(([what, n]) => `${what} ${n}`).join(', ')}`,
      );
    const before = new Map(s.status.problems.map((p) => [problemKey(p), p]));
    const at = new Date(started).toISOString();
    s.status.problems = now.map((p) => {
      const known = before.get(problemKey({ ...p, since: '' }));
      if (!known)
        this.o.log(
          'warn',
          `provisioning: ${s.status.source}${p.file !== undefined ? ` ${placeOf(p)}` : ''}${p.object ? ` (${p.object})` : ''}: ${p.type}: ${p.message}`,
        );
      return { ...p, since: known?.since ?? at };
    });
    s.status.passes++;
    s.status.lastPassAt = at;
    s.status.lastPassSeconds = (Date.now() - started) / 1000;
  }
}

function placeFields(f: Found): Pick<ProvisioningProblem, 'file' | 'index' | 'line'> {
  return {
    file: f.doc.file,
    ...(f.doc.ofFile > 1 ? { index: f.doc.index } : {}),
    ...(f.doc.line !== undefined ? { line: f.doc.line } : {}),
  };
}
