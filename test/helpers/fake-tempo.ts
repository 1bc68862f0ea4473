/**
 * A fake Tempo speaking its HTTP API (Tempo's "API documentation"): TraceQL search
 * (`/api/search`), a trace by ID (`/api/traces/<id>` in Tempo's JSON form of OTLP, IDs in base64;
 * `/api/v2/traces/<id>` as `{"trace": {"resourceSpans"}}`), tag names and values
 * (`/api/v2/search/tags`, `/api/v2/search/tag/<tag>/values`), echo, ready and buildinfo. Tempo is
 * not packaged in Debian, so the UI and proxy tests use this.
 *
 * It holds the traces of `fakeTraces(now)`. TraceQL: `{}` or a spanset filter `{ a && b }` whose
 * conditions compare `resource.service.name`, `name`, `status`, `.attr` or `span.attr` with `=`
 * or `!=`; a trace matches when one span meets every condition. Anything else is a 400, as Tempo
 * answers an invalid query.
 */
import { BadRequest, type FakeAnswer, orBadRequest, type RunningFake, startFake } from './fake-http.js';

/** One span of a fake trace; times in milliseconds since the epoch. */
export interface FakeSpan {
  id: string;
  parent?: string;
  service: string;
  name: string;
  start: number;
  end: number;
  error?: boolean;
  attributes?: Record<string, string>;
}

/** A fake trace: its ID (32 hex digits) and spans (the first is the root). */
export interface FakeTrace {
  id: string;
  spans: FakeSpan[];
}

/** Two traces that ended shortly before `now`: a checkout across three services (one span failed) and a health check. */
export function fakeTraces(now: number): FakeTrace[] {
  const t = now - 120_000;
  return [
    {
      id: '0af7651916cd43dd8448eb211c80319c',
      spans: [
        {
          id: 'b7ad6b7169203331',
          service: 'frontend',
          name: 'GET /checkout',
          start: t,
          end: t + 180,
          attributes: { 'http.method': 'GET' },
        },
        { id: '00f067aa0ba902b7', parent: 'b7ad6b7169203331', service: 'checkout', name: 'PlaceOrder', start: t + 10, end: t + 150 },
        {
          id: '5fb397be34d26b51',
          parent: '00f067aa0ba902b7',
          service: 'payment',
          name: 'Charge',
          start: t + 20,
          end: t + 120,
          error: true,
          attributes: { 'payment.provider': 'acme' },
        },
      ],
    },
    {
      id: '4bf92f3577b34da6a3ce929d0e0e4736',
      spans: [
        {
          id: '53995c3f42cd8ad8',
          service: 'frontend',
          name: 'GET /healthz',
          start: t + 30_000,
          end: t + 30_004,
          attributes: { 'http.method': 'GET' },
        },
      ],
    },
  ];
}

type Condition = (s: FakeSpan) => boolean;

/** Starts a fake Tempo on 127.0.0.1 holding `traces` (default: `fakeTraces(Date.now())`). */
export function startFakeTempo(traces: FakeTrace[] = fakeTraces(Date.now())): Promise<RunningFake> {
  const tempo = (fn: () => FakeAnswer) => orBadRequest(fn, (message) => ({ text: `${message}\n` }));
  const byId = (id: string) => traces.find((t) => t.id === id.toLowerCase().padStart(32, '0'));
  const notFound = { status: 404, text: 'trace not found\n' };
  return startFake('tempo', [
    { methods: ['GET'], path: /\/api\/search/, handle: (req) => tempo(() => ({ json: search(traces, req.query) })) },
    {
      methods: ['GET'],
      path: /\/api\/traces\/([0-9a-fA-F]{1,32})/,
      handle: (_req, [id]) => {
        const t = byId(id);
        return t ? { json: { batches: resourceSpans(t) } } : notFound;
      },
    },
    {
      methods: ['GET'],
      path: /\/api\/v2\/traces\/([0-9a-fA-F]{1,32})/,
      handle: (_req, [id]) => {
        const t = byId(id);
        return t ? { json: { trace: { resourceSpans: resourceSpans(t) } } } : notFound;
      },
    },
    {
      methods: ['GET'],
      path: /\/api\/v2\/search\/tags/,
      handle: (req) => ({ json: { scopes: tagScopes(traces, req.query.get('scope')) } }),
    },
    {
      methods: ['GET'],
      path: /\/api\/v2\/search\/tag\/([^/]+)\/values/,
      handle: (_req, [tag]) => ({
        json: {
          tagValues: [...new Set(traces.flatMap((t) => t.spans.map((s) => spanValue(s, tag))).filter((v) => v !== undefined))]
            .sort()
            .map((value) => ({ type: 'string', value })),
          metrics: {},
        },
      }),
    },
    { methods: ['GET'], path: /\/api\/echo/, handle: () => ({ text: 'echo' }) },
    { methods: ['GET'], path: /\/ready/, handle: () => ({ text: 'ready\n' }) },
    {
      methods: ['GET'],
      path: /\/api\/status\/buildinfo/,
      handle: () => ({ json: { version: '2.5.0-fake', revision: 'fake', branch: 'fake' } }),
    },
  ]);
}

function search(traces: FakeTrace[], p: URLSearchParams) {
  const conditions = parseTraceQL(p.get('q') ?? '{}');
  const start = p.get('start') ? Number(p.get('start')) * 1000 : Number.NEGATIVE_INFINITY;
  const end = p.get('end') ? Number(p.get('end')) * 1000 : Number.POSITIVE_INFINITY;
  const limit = Number(p.get('limit') ?? 20);
  const found = traces
    .filter((t) => t.spans[0].start >= start && t.spans[0].start <= end)
    .map((t) => ({ t, matched: t.spans.filter((s) => conditions.every((c) => c(s))) }))
    .filter((x) => x.matched.length > 0)
    .slice(0, limit);
  return {
    traces: found.map(({ t, matched }) => {
      const root = t.spans[0];
      const serviceStats: Record<string, { spanCount: number; errorCount?: number }> = {};
      for (const s of t.spans) {
        const st = serviceStats[s.service] ?? { spanCount: 0 };
        st.spanCount++;
        if (s.error) st.errorCount = (st.errorCount ?? 0) + 1;
        serviceStats[s.service] = st;
      }
      return {
        traceID: t.id,
        rootServiceName: root.service,
        rootTraceName: root.name,
        startTimeUnixNano: nanos(root.start),
        durationMs: Math.max(...t.spans.map((s) => s.end)) - root.start,
        spanSets: [
          {
            spans: matched.map((s) => ({
              spanID: s.id,
              startTimeUnixNano: nanos(s.start),
              durationNanos: String((s.end - s.start) * 1_000_000),
            })),
            matched: matched.length,
          },
        ],
        serviceStats,
      };
    }),
    metrics: { inspectedTraces: traces.length, completedJobs: 1, totalJobs: 1 },
  };
}

/** The trace in Tempo's JSON form of OTLP: one resource per service, IDs in base64 as protobuf JSON writes bytes. */
function resourceSpans(t: FakeTrace) {
  const services = [...new Set(t.spans.map((s) => s.service))];
  return services.map((service) => ({
    resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
    scopeSpans: [
      {
        scope: { name: 'fake-tempo' },
        spans: t.spans
          .filter((s) => s.service === service)
          .map((s) => ({
            traceId: b64(t.id),
            spanId: b64(s.id),
            ...(s.parent ? { parentSpanId: b64(s.parent) } : {}),
            name: s.name,
            kind: s.parent ? 'SPAN_KIND_INTERNAL' : 'SPAN_KIND_SERVER',
            startTimeUnixNano: nanos(s.start),
            endTimeUnixNano: nanos(s.end),
            attributes: Object.entries(s.attributes ?? {}).map(([key, v]) => ({ key, value: { stringValue: v } })),
            status: s.error ? { code: 'STATUS_CODE_ERROR', message: 'failed' } : {},
          })),
      },
    ],
  }));
}

function tagScopes(traces: FakeTrace[], scope: string | null) {
  const spanTags = [...new Set(traces.flatMap((t) => t.spans.flatMap((s) => Object.keys(s.attributes ?? {}))))].sort();
  const all = [
    { name: 'resource', tags: ['service.name'] },
    { name: 'span', tags: spanTags },
    { name: 'intrinsic', tags: ['duration', 'kind', 'name', 'status'] },
  ];
  return scope && scope !== 'all' ? all.filter((s) => s.name === scope) : all;
}

function spanValue(s: FakeSpan, field: string): string | undefined {
  if (field === 'resource.service.name' || field === 'service.name' || field === '.service.name') return s.service;
  if (field === 'name') return s.name;
  if (field === 'status') return s.error ? 'error' : 'unset';
  return s.attributes?.[field.replace(/^(span)?\./, '')];
}

function parseTraceQL(q: string): Condition[] {
  const m = /^\s*\{(.*)\}\s*$/s.exec(q);
  if (!m) throw new BadRequest(`invalid TraceQL query: parse error at line 1: syntax error: ${JSON.stringify(q)}`);
  if (m[1].trim() === '') return [];
  return m[1].split('&&').map((part) => {
    const c =
      /^\s*(resource\.service\.name|name|status|span\.[\w.]+|\.[\w.]+)\s*(!=|=)\s*(?:"((?:[^"\\]|\\.)*)"|(error|ok|unset))\s*$/.exec(part);
    if (!c) throw new BadRequest(`invalid TraceQL query: parse error: unsupported condition ${JSON.stringify(part.trim())}`);
    const want = c[3] ?? c[4];
    return (s: FakeSpan) => (spanValue(s, c[1]) === want) === (c[2] === '=');
  });
}

const nanos = (ms: number) => `${BigInt(ms) * 1_000_000n}`;
const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');
