import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Authorizer, Visible } from '../access/authorizer.js';
import { AuditIncarnations } from '../audit/incarnations.js';
import { badRequest } from '../errors.js';
import { AUDIT_KIND } from '../kinds/audit-event.js';
import type { AuditEntry, AuditQuery } from '../storage/audit-types.js';
import type { Store } from '../storage/store.js';
import { auditFilters, auditPage, continueToken } from './audit-query.js';
import { flag, single, type Query } from './request-options.js';
import { documented } from './route-doc.js';

export interface AuditRouteOptions {
  store: Store;
  authorizer: Authorizer;
  /** Longest silence of a watch before a BOOKMARK. */
  bookmarkMs: number;
  /** The kind of projects (whose creations and deletions tell a project's incarnations apart). */
  projectKind: string;
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
  responses: { 200: { description: 'Entries (or an application/x-ndjson stream with watch=true)', schema: { type: 'array', items: { type: 'object' } } } },
});

export function registerAuditRoutes(app: FastifyInstance, o: AuditRouteOptions): void {
  const streams = new Set<AbortController>();
  app.addHook('preClose', async () => {
    for (const s of streams) s.abort();
  });
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
    if (flag(req.query, 'watch')) return watch(req, reply, o, filters, visible, shown, streams);
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
    if (next !== undefined) void reply.header('Link', `<${nextUrl(req.url, continueToken(next))}>; rel="next"`);
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
  streams: Set<AbortController>,
) {
  const since = single(req.query, 'since');
  if (since !== undefined && !/^\d{1,15}$/.test(since)) throw badRequest(`query parameter "since" must be an audit entry id, not ${JSON.stringify(since)}`);
  let cursor = since !== undefined ? Number(since) : await o.store.lastAuditId();
  const ac = new AbortController();
  streams.add(ac);
  let wake: () => void = () => undefined;
  let woken = new Promise<void>((r) => (wake = r));
  const off = o.store.onAudit((n) => n.lastId > cursor && wake());
  const stop = () => {
    ac.abort();
    wake();
  };
  req.raw.once('close', stop);
  reply.raw.once('close', stop);
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { ...(reply.getHeaders() as Record<string, string>), 'content-type': 'application/x-ndjson; charset=utf-8', 'x-accel-buffering': 'no', connection: 'close' });
  res.flushHeaders();
  let shown = first;
  const incarnations = new AuditIncarnations({ store: o.store, projectKind: o.projectKind });
  let timer: NodeJS.Timeout | undefined;
  try {
    while (!ac.signal.aborted) {
      woken = new Promise<void>((r) => (wake = r));
      const page = await o.store.listAudit({ ...filters, afterId: cursor, limit: BATCH });
      for (const e of await shownOf(shown, page.entries, incarnations)) res.write(`{"type":"ADDED","revision":${e.id},"object":${JSON.stringify(e)}}\n`);
      if (page.entries.length) cursor = page.entries[page.entries.length - 1].id;
      if (page.next !== undefined) cursor = Math.max(cursor, page.next);
      if (page.next !== undefined || page.entries.length === BATCH) continue;
      const bookmark = new Promise<'bookmark'>((r) => (timer = setTimeout(() => r('bookmark'), o.bookmarkMs)));
      if ((await Promise.race([woken, bookmark])) === 'bookmark') res.write(`{"type":"BOOKMARK","revision":${Math.max(cursor, await o.store.lastAuditId())}}\n`);
      clearTimeout(timer);
      shown = await visible(); // a watcher who lost the permission stops here
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    clearTimeout(timer);
    off();
    streams.delete(ac);
  }
}

function nextUrl(url: string, token: string): string {
  const u = new URL(url, 'http://x');
  u.searchParams.set('continue', token);
  return u.pathname + u.search;
}
