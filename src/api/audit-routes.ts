import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { endAtExpiry, revokedEnd } from '../access/credential-end.js';
import type { Authorizer, Principal, Revocation, Visible } from '../access/authorizer.js';
import { AuditIncarnations } from '../audit/incarnations.js';
import { badRequest } from '../errors.js';
import { streamEndOf } from '../lib/stream-end.js';
import { AUDIT_KIND } from '../kinds/audit-event.js';
import type { AuditEntry, AuditQuery } from '../storage/audit-types.js';
import type { AuditStore, ObjectStore } from '../storage/store.js';
import { auditFilters, auditPage, continueToken } from './audit-query.js';
import { flag, single, type Query } from './request-options.js';
import type { LongStreams, StreamLine } from './long-streams.js';
import { documented } from './route-doc.js';

export interface AuditRouteOptions {
  /** The audit log, and the events that may end a watcher's authentication (`revocation`). */
  store: AuditStore & Pick<ObjectStore, 'onEvent'>;
  authorizer: Authorizer;
  /** Longest silence of a watch before a BOOKMARK. */
  bookmarkMs: number;
  /** The kind of projects (whose creations and deletions tell a project's incarnations apart). */
  projectKind: string;
  /** What ends a principal's authentication (logout, revoked token): its audit watches end with it. */
  revocation?: Revocation;
  /** The long-lived responses (the per-user cap, writing, the final ERROR). */
  streams: LongStreams;
}

type Filters = Omit<AuditQuery, 'limit' | 'beforeId' | 'afterId'>;
const BATCH = 500;
/** Batches one page request reads at most when the caller sees only some projects' entries. */
const MAX_BATCHES = 20;

/**
 * `GET /api/v1/audit`: the audit log, newest first, filtered (user, kind, project, action, from,
 * to) and paginated (limit, continue, Link rel="next"); `watch=true[&since=<id>]` streams new
 * entries as newline-delimited JSON. `read` on AuditEvent globally shows every entry; in a
 * project, the entries about that project since it was created (never those of an earlier project
 * of the same name: see AuditIncarnations).
 */
const AUDIT_DOC = documented({
  tag: 'Audit',
  summary: 'The audit log, newest first: every write, login, token use and permission denial',
  description:
    '`read` on AuditEvent globally shows every entry; in a project Role, the entries about that project since it was created (none of an earlier, deleted project of the same name). Entries hold names and versions, never contents or secrets.',
  query: [
    { name: 'user', description: 'Only entries of this user (sa:<project>/<name> for a service account)' },
    { name: 'kind', description: 'Only entries about this kind' },
    { name: 'project', description: 'Only entries about this project' },
    { name: 'action', description: 'create, update, delete, login, login-failed, logout, token-create, token-use, token-revoke or denied' },
    { name: 'from', description: 'RFC 3339: entries at or after' },
    { name: 'to', description: 'RFC 3339: entries before' },
    { name: 'limit', description: 'Page size (100, at most 1000)', type: 'integer' },
    { name: 'continue', description: 'The token of the next page (Link rel="next")' },
    { name: 'watch', description: 'true: stream new entries as newline-delimited JSON', type: 'boolean' },
    { name: 'since', description: 'With watch: entries after this id', type: 'integer' },
  ],
  responses: {
    200: {
      description: 'Entries (or an application/x-ndjson stream with watch=true)',
      schema: { type: 'array', items: { type: 'object' } },
    },
    429: {
      description: 'With watch=true: the caller holds watch.max_streams_per_user open streams already; `Retry-After`',
      schema: 'Error',
    },
  },
});

export function registerAuditRoutes(app: FastifyInstance, o: AuditRouteOptions): void {
  app.get<{ Querystring: Query }>('/api/v1/audit', AUDIT_DOC, async (req, reply) => {
    const filters = auditFilters(req.query);
    /** '*' for a reader of the whole log; else which projects' entries (403 when none, or not the project asked for). */
    const visible = async (): Promise<Visible> => {
      if (filters.project === undefined) return o.authorizer.readable(req.principal, AUDIT_KIND, undefined, { requireSome: true });
      const there = await o.authorizer.readable(req.principal, AUDIT_KIND, filters.project);
      // every entry of the project: the reader may still read only its current incarnation's
      return there === '*' ? o.authorizer.readable(req.principal, AUDIT_KIND) : there;
    };
    const shown = await visible();
    if (flag(req.query, 'watch')) return watch(req, reply, o, filters, visible, shown);
    const { limit, beforeId } = auditPage(req.query);
    const out: AuditEntry[] = [];
    const want = shown === '*' ? limit + 1 : BATCH;
    const incarnations = new AuditIncarnations({ store: o.store, projectKind: o.projectKind });
    let cursor = beforeId;
    let exhausted = false;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const page = await o.store.listAudit({ ...filters, ...(cursor !== undefined ? { beforeId: cursor } : {}), limit: want });
      out.push(...(await shownOf(shown, page.entries, incarnations)));
      const last = page.next ?? page.entries[page.entries.length - 1]?.id;
      exhausted = page.next === undefined && page.entries.length < want;
      if (last !== undefined) cursor = last;
      if (out.length > limit || exhausted) break;
    }
    const items = out.slice(0, limit);
    const next = out.length > limit ? items[items.length - 1].id : exhausted ? undefined : cursor;
    if (next !== undefined) void reply.header('Link', `<${nextUrl(req.originalUrl, continueToken(next))}>; rel="next"`);
    return items;
  });
}

/**
 * The entries `shown` lets the caller see: all of them for a reader of the whole log; for a reader
 * of some projects, those about these projects as they are now (after their current creation).
 */
async function shownOf(shown: Visible, entries: readonly AuditEntry[], incarnations: AuditIncarnations): Promise<readonly AuditEntry[]> {
  if (shown === '*') return entries;
  return incarnations.current(entries.filter((e) => e.project !== undefined && shown(e.project, e.name ?? '')));
}

/** New entries as they are committed (on any replica), from `since` (an id) or from now. */
async function watch(
  req: FastifyRequest<{ Querystring: Query }>,
  reply: FastifyReply,
  o: AuditRouteOptions,
  filters: Filters,
  visible: () => Promise<Visible>,
  first: Visible,
) {
  const since = single(req.query, 'since');
  if (since !== undefined && !/^\d{1,15}$/.test(since))
    throw badRequest(`query parameter "since" must be an audit entry id, not ${JSON.stringify(since)}`);
  const from = since !== undefined ? Number(since) : await o.store.lastAuditId();
  return o.streams.serve(
    req,
    reply,
    async (life) => entries({ o, filters, visible, first, from, principal: req.principal, life }),
    (line) => line,
  );
}

/**
 * The lines of an audit watch: entries after `from` as they are committed, BOOKMARKs, and a final
 * ERROR when the stream's credential expires or is revoked (no entry committed after a revocation
 * is sent). Entries are read a page at a time as the client takes them: nothing waits in memory.
 */
async function* entries(a: {
  o: AuditRouteOptions;
  filters: Filters;
  visible: () => Promise<Visible>;
  first: Visible;
  from: number;
  principal: Principal;
  life: AbortController;
}): AsyncGenerator<StreamLine> {
  const { o, filters, principal: p, life } = a;
  const ended = life.signal;
  let cursor = a.from;
  let wake: () => void = () => undefined;
  let woken = new Promise<void>((r) => (wake = r));
  const offAudit = o.store.onAudit((n) => n.lastId > cursor && wake());
  // a change that may end the principal is checked before the next entries go out
  let suspect = false;
  const offEvents = o.revocation ? o.store.onEvent((e) => (suspect ||= o.revocation!.concerns(p, e.object))) : () => undefined;
  const stopExpiry = endAtExpiry(p, life);
  const onEnd = () => wake();
  ended.addEventListener('abort', onEnd);
  let shown = a.first;
  const incarnations = new AuditIncarnations({ store: o.store, projectKind: o.projectKind });
  let timer: NodeJS.Timeout | undefined;
  /** The last id when a BOOKMARK fell due: it may claim it once a page read after it is sent (another replica's entries may not be listed yet). */
  let bookmarkTo: number | undefined;
  try {
    while (!ended.aborted) {
      woken = new Promise<void>((r) => (wake = r));
      if (suspect) {
        suspect = false;
        if (!(await o.revocation!.stillValid(p))) life.abort(revokedEnd(p));
      }
      if (ended.aborted) break;
      const page = await o.store.listAudit({ ...filters, afterId: cursor, limit: BATCH });
      let cut = false;
      for (const e of await shownOf(shown, page.entries, incarnations)) {
        // ended meanwhile (the credential expired): the rest is sent to whoever watches again
        if (ended.aborted) {
          cut = true;
          cursor = e.id - 1;
          break;
        }
        yield `{"type":"ADDED","revision":${e.id},"object":${JSON.stringify(e)}}\n`;
      }
      if (cut) break;
      if (page.entries.length) cursor = page.entries[page.entries.length - 1].id;
      if (page.next !== undefined) cursor = Math.max(cursor, page.next);
      if (page.next !== undefined || page.entries.length === BATCH) continue;
      if (bookmarkTo !== undefined) yield `{"type":"BOOKMARK","revision":${Math.max(cursor, bookmarkTo)}}\n`;
      bookmarkTo = undefined;
      const bookmark = new Promise<'bookmark'>((r) => (timer = setTimeout(() => r('bookmark'), o.bookmarkMs)));
      if ((await Promise.race([woken, bookmark])) === 'bookmark') bookmarkTo = await o.store.lastAuditId();
      clearTimeout(timer);
      shown = await a.visible(); // a watcher who lost the permission stops here
    }
    const end = streamEndOf(ended);
    if (end) yield { error: end.error(cursor), revision: cursor };
  } finally {
    clearTimeout(timer);
    offAudit();
    offEvents();
    stopExpiry();
    ended.removeEventListener('abort', onEnd);
  }
}

function nextUrl(url: string, token: string): string {
  const u = new URL(url, 'http://x');
  u.searchParams.set('continue', token);
  return u.pathname + u.search;
}
