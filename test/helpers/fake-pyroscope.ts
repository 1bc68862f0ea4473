/**
 * A fake Pyroscope speaking its HTTP API (Pyroscope's "Server HTTP API" reference): the render
 * endpoint `GET /pyroscope/render?query=<profile type>{<label matchers>}&from&until` answering a
 * flame graph in the "single" flamebearer format with its metadata and timeline, and the Connect
 * querier service the UI's editors call, `POST /querier.v1.QuerierService/{ProfileTypes,
 * LabelNames, LabelValues}` with JSON bodies (Connect's rules: `application/json` or 415, errors
 * as `{"code", "message"}`). Pyroscope is not packaged in Debian, so the UI and proxy tests use this.
 *
 * Every service has the same call tree (`STACKS`); a profile type scales its values.
 */
import { BadRequest, type FakeAnswer, type FakeRequest, orBadRequest, parseTime, type RunningFake, startFake } from './fake-http.js';

/** A profile type the fake serves, as ProfileTypes lists it. */
export interface FakeProfileType {
  ID: string;
  name: string;
  sampleType: string;
  sampleUnit: string;
  periodType: string;
  periodUnit: string;
}

export const PROFILE_TYPES: readonly FakeProfileType[] = [
  {
    ID: 'process_cpu:cpu:nanoseconds:cpu:nanoseconds',
    name: 'process_cpu',
    sampleType: 'cpu',
    sampleUnit: 'nanoseconds',
    periodType: 'cpu',
    periodUnit: 'nanoseconds',
  },
  {
    ID: 'memory:alloc_space:bytes:space:bytes',
    name: 'memory',
    sampleType: 'alloc_space',
    sampleUnit: 'bytes',
    periodType: 'space',
    periodUnit: 'bytes',
  },
];

/** The services (label `service_name`) that have profiles, and their other labels. */
export const SERVICES: readonly Record<string, string>[] = [
  { service_name: 'checkout', namespace: 'shop' },
  { service_name: 'frontend', namespace: 'shop' },
];

/** The call tree of every profile: a frame's self value and its callees. */
interface Frame {
  name: string;
  self: number;
  children?: Frame[];
}
const STACKS: Frame = {
  name: 'total',
  self: 0,
  children: [
    {
      name: 'main.main',
      self: 5,
      children: [
        {
          name: 'net/http.(*conn).serve',
          self: 10,
          children: [{ name: 'shop.PlaceOrder', self: 20, children: [{ name: 'database/sql.(*DB).Query', self: 40 }] }],
        },
        { name: 'encoding/json.Marshal', self: 25 },
      ],
    },
    { name: 'runtime.gcBgMarkWorker', self: 15 },
  ],
};

/** Starts a fake Pyroscope on 127.0.0.1. */
export function startFakePyroscope(): Promise<RunningFake> {
  const connect = (req: FakeRequest, fn: (body: Record<string, unknown>) => unknown): FakeAnswer => {
    if (!/^application\/json(;|$)/.test(req.headers['content-type'] ?? '')) return { status: 415, text: '' };
    let body: unknown;
    try {
      body = JSON.parse(req.body || '{}');
    } catch (e) {
      return { status: 400, json: { code: 'invalid_argument', message: `unmarshal into *querierv1.Request: ${(e as Error).message}` } };
    }
    return orBadRequest(
      () => ({ json: fn(body as Record<string, unknown>) }),
      (message) => ({ json: { code: 'invalid_argument', message } }),
    );
  };
  const services = (matchers: unknown) =>
    SERVICES.filter((s) => (Array.isArray(matchers) ? matchers : []).every((m) => parseSelector(String(m)).every(([k, v]) => s[k] === v)));
  return startFake('pyroscope', [
    {
      methods: ['GET'],
      path: /\/pyroscope\/render/,
      handle: (req) =>
        orBadRequest(
          () => ({ json: render(req.query) }),
          (message) => ({ text: `${message}\n` }),
        ),
    },
    {
      methods: ['POST'],
      path: /\/querier\.v1\.QuerierService\/ProfileTypes/,
      handle: (req) => connect(req, () => ({ profileTypes: PROFILE_TYPES })),
    },
    {
      methods: ['POST'],
      path: /\/querier\.v1\.QuerierService\/LabelNames/,
      handle: (req) => connect(req, (b) => ({ names: [...new Set(services(b.matchers).flatMap((s) => Object.keys(s)))].sort() })),
    },
    {
      methods: ['POST'],
      path: /\/querier\.v1\.QuerierService\/LabelValues/,
      handle: (req) =>
        connect(req, (b) => {
          if (typeof b.name !== 'string' || b.name === '') throw new BadRequest('name: value is required');
          return {
            names: [
              ...new Set(services(b.matchers).flatMap((s) => (s[b.name as string] === undefined ? [] : [s[b.name as string]]))),
            ].sort(),
          };
        }),
    },
    { methods: ['GET'], path: /\/ready/, handle: () => ({ text: 'ready\n' }) },
  ]);
}

/** The merged profile of the selected services over [from, until], as /pyroscope/render answers it in JSON. */
function render(p: URLSearchParams) {
  const query = p.get('query');
  if (!query) throw new BadRequest('query is required, e.g. process_cpu:cpu:nanoseconds:cpu:nanoseconds{service_name="checkout"}');
  const m = /^([^{]+)(?:\{(.*)\})?$/.exec(query.trim());
  const type = PROFILE_TYPES.find((t) => t.ID === m?.[1]);
  if (!m || !type)
    throw new BadRequest(`unknown profile type in query ${JSON.stringify(query)}; known: ${PROFILE_TYPES.map((t) => t.ID).join(', ')}`);
  const selected = SERVICES.filter((s) => parseSelector(m[2] ?? '').every(([k, v]) => s[k] === v));
  const until = relative(p.get('until'), Date.now());
  const from = relative(p.get('from'), until - 3_600_000);
  const scale = selected.length * (type.name === 'memory' ? 1024 : 1_000_000);
  const names: string[] = [];
  const levels: number[][] = [];
  const total = (f: Frame): number => f.self + (f.children ?? []).reduce((n, c) => n + total(c), 0);
  // the "single" format: per level, [offset from the previous bar's end, total, self, index in names] for each bar
  const walk = (f: Frame, level: number, start: number) => {
    levels[level] = levels[level] ?? [];
    const row = levels[level];
    row.push(start - rowEnd(row), total(f) * scale, f.self * scale, names.push(f.name) - 1);
    let x = start;
    for (const c of f.children ?? []) {
      walk(c, level + 1, x);
      x += total(c) * scale;
    }
  };
  if (selected.length) walk(STACKS, 0, 0);
  const step = 10;
  const samples = Array.from({ length: Math.max(1, Math.ceil((until - from) / 1000 / step)) }, () =>
    selected.length ? total(STACKS) * scale : 0,
  );
  return {
    version: 1,
    flamebearer: { names, levels, numTicks: selected.length ? total(STACKS) * scale : 0, maxSelf: selected.length ? 40 * scale : 0 },
    metadata: { format: 'single', spyName: 'gospy', sampleRate: 100, units: type.name === 'memory' ? 'bytes' : 'samples', name: type.ID },
    timeline: { startTime: Math.floor(from / 1000), samples, durationDelta: step },
  };
}

/** Where the bars of a level written so far end (the offsets are relative). */
function rowEnd(row: number[]): number {
  let x = 0;
  for (let i = 0; i < row.length; i += 4) x += row[i] + row[i + 1];
  return x;
}

/** A time in milliseconds: "now", "now-1h" (s, m, h, d), or what parseTime reads. */
function relative(v: string | null, fallback: number): number {
  const m = v ? /^now(?:-(\d+)([smhd]))?$/.exec(v) : null;
  if (!m) return parseTime(v, fallback);
  return Date.now() - (m[1] ? Number(m[1]) * { s: 1e3, m: 6e4, h: 36e5, d: 864e5 }[m[2] as 's']! : 0);
}

/** `a="x", b="y"` as [label, value] pairs (equality matchers only). */
function parseSelector(s: string): [string, string][] {
  const out: [string, string][] = [];
  for (const part of s
    .replace(/^\{|\}$/g, '')
    .split(',')
    .filter((x) => x.trim())) {
    const m = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*$/.exec(part);
    if (!m) throw new BadRequest(`parse error: only label="value" matchers are supported here: ${JSON.stringify(part.trim())}`);
    out.push([m[1], JSON.parse(`"${m[2]}"`)]);
  }
  return out;
}
