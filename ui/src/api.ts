// The dashplane HTTP API as the UI uses it (docs/api.md). Credentials are the cookies that
// login sets; fetch-refresh.ts refreshes them once on a 401 for every same-origin call.

export interface Metadata {
  name: string;
  project?: string;
  version?: number;
  createdAt?: string;
  updatedAt?: string;
  tags?: string[];
}

export interface Resource<S = Record<string, unknown>> {
  kind: string;
  metadata: Metadata;
  spec: S;
}

export interface ErrorDetail {
  path: string;
  message: string;
}

/** An error answer of the API: `{message, reason, details?}` with its status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }
}

export const enc = encodeURIComponent;

/** `/api/v1[/projects/{p}]/{plural}[/{name}]` */
export function resourcePath(plural: string, project?: string, name?: string): string {
  const base = plural === 'projects' || !project ? `/api/v1/${plural}` : `/api/v1/projects/${enc(project)}/${plural}`;
  return name === undefined ? base : `${base}/${enc(name)}`;
}

async function toError(res: Response): Promise<ApiError> {
  const text = await res.text();
  try {
    const body = JSON.parse(text) as { message?: string; reason?: string; details?: ErrorDetail[] };
    return new ApiError(res.status, body.reason ?? String(res.status), body.message ?? res.statusText, body.details ?? []);
  } catch {
    return new ApiError(res.status, String(res.status), text || res.statusText);
  }
}

/**
 * Headers of every call: the field manager the server records with each write the UI makes (shown
 * in the history), and that a save or restore changing nothing writes nothing (no new version).
 */
const WRITE_HEADERS = { 'X-Dashplane-Manager': 'web-ui', 'X-Dashplane-Skip-Unchanged': 'true' };

/** GETs started before the page asks for them (route-prefetch.ts), by URL; each answer is taken once. */
const early = new Map<string, { at: number; answer: Promise<Response> }>();
/** When the page last sent a GET of each URL itself (a prefetch after it would be a second request). */
const asked = new Map<string, number>();
/** An early answer older than this is not used (the page asks again). */
const EARLY_TTL_MS = 10_000;

/**
 * Starts a GET that the page is about to make, so that it runs beside the loading of the page's
 * code instead of after it: the next `call('GET', url)` (without extra headers) takes its answer,
 * once, within 10 s. Only for what the page would ask for anyway, with the same permissions. The
 * answer is read whole at once (an answer nobody takes leaves no request open).
 */
export function prefetch(url: string): void {
  if (early.has(url) || Date.now() - (asked.get(url) ?? -Infinity) < EARLY_TTL_MS) return;
  const answer = fetch(url, { method: 'GET', credentials: 'same-origin', headers: { Accept: 'application/json', ...WRITE_HEADERS } }).then(
    async (r) => new Response(await r.arrayBuffer(), { status: r.status, statusText: r.statusText, headers: r.headers }),
  );
  answer.catch(() => undefined); // the call that takes it sees the failure and asks again
  early.set(url, { at: Date.now(), answer });
}

async function earlyAnswer(url: string): Promise<Response | undefined> {
  const e = early.get(url);
  asked.set(url, Date.now());
  if (!e) return undefined;
  early.delete(url);
  if (Date.now() - e.at > EARLY_TTL_MS) return undefined;
  return e.answer.catch(() => undefined);
}

/** Every call of the UI to the API: cookies, JSON, the write headers; a non-2xx answer throws an ApiError. */
export async function call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const res =
    (method === 'GET' && body === undefined && Object.keys(headers).length === 0 ? await earlyAnswer(url) : undefined) ??
    (await fetch(url, {
      method,
      credentials: 'same-origin',
      headers: {
        Accept: 'application/json',
        ...WRITE_HEADERS,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }));
  if (!res.ok) throw await toError(res);
  return res;
}

export async function getJson<T>(url: string): Promise<T> {
  return (await call('GET', url)).json() as Promise<T>;
}

export interface PublicConfig {
  security?: {
    enable_auth?: boolean;
    authentication?: {
      disable_sign_up?: boolean;
      providers?: {
        enable_native?: boolean;
        oidc?: { slug_id: string; name?: string }[];
        oauth?: { slug_id: string; name?: string }[];
      };
    };
  };
}

export const getConfig = () => getJson<PublicConfig>('/api/config');

/** An OIDC or OAuth provider of the configuration, and where its sign-in starts (back to `redirect` after). */
export interface ExternalProvider {
  kind: 'oidc' | 'oauth';
  slug_id: string;
  name?: string;
  login(redirect: string): string;
}

/** The ways to sign in the configuration offers: the native form (user name and password), and a button per provider. */
export function signInOptions(config: PublicConfig): { native: boolean; external: ExternalProvider[] } {
  const providers = config.security?.authentication?.providers;
  const external = (kind: 'oidc' | 'oauth') =>
    (providers?.[kind] ?? []).map((p) => ({
      ...p,
      kind,
      login: (redirect: string) => `/api/auth/providers/${kind}/${enc(p.slug_id)}/login?redirect=${enc(redirect)}`,
    }));
  return { native: providers?.enable_native !== false, external: [...external('oidc'), ...external('oauth')] };
}
export const whoami = () => getJson<Resource>('/api/v1/user/whoami');

export async function login(login: string, password: string): Promise<void> {
  await call('POST', '/api/auth/providers/native/login', { login, password });
}

export async function signUp(name: string, password: string): Promise<void> {
  await call('POST', '/api/v1/users', { kind: 'User', metadata: { name }, spec: { nativeProvider: { password } } });
}

export async function logout(): Promise<void> {
  await call('GET', '/api/auth/logout');
}

export function list<T = Resource>(plural: string, project?: string, query: Record<string, string> = {}): Promise<T[]> {
  const qs = new URLSearchParams(query).toString();
  return getJson<T[]>(resourcePath(plural, project) + (qs ? `?${qs}` : ''));
}

export interface Versioned<T = Resource> {
  object: T;
  /** The ETag to send back as If-Match. */
  etag: string;
}

export async function getResource<T = Resource>(plural: string, project: string | undefined, name: string): Promise<Versioned<T>> {
  const res = await call('GET', resourcePath(plural, project, name));
  const object = (await res.json()) as T & Resource;
  return { object, etag: res.headers.get('ETag') ?? `"${object.metadata.version ?? 0}"` };
}

/** PUT with If-Match: 412 (ApiError status 412) when someone else saved first. */
export async function putResource<T = Resource>(
  plural: string,
  project: string | undefined,
  name: string,
  body: unknown,
  etag?: string,
  dryRun = false,
): Promise<Versioned<T>> {
  const url = resourcePath(plural, project, name) + (dryRun ? '?dryRun=true' : '');
  const res = await call('PUT', url, body, etag ? { 'If-Match': etag } : {});
  const object = (await res.json()) as T & Resource;
  return { object, etag: res.headers.get('ETag') ?? `"${object.metadata.version ?? 0}"` };
}

export interface VersionEntry {
  version: number;
  updatedAt?: string;
  updatedBy?: string;
  /** The field manager of that write: web-ui, dashctl, api, restore... */
  manager?: string;
}

export const listVersions = (plural: string, project: string | undefined, name: string) =>
  getJson<VersionEntry[]>(`${resourcePath(plural, project, name)}/versions`);

/** The latest write of each field manager, newest first: the first one wrote the current version. */
export const listManagers = (plural: string, project: string | undefined, name: string) =>
  getJson<VersionEntry[]>(`${resourcePath(plural, project, name)}/managers`);

export const getVersion = (plural: string, project: string | undefined, name: string, version: number) =>
  getJson<Resource>(`${resourcePath(plural, project, name)}/versions/${version}`);

export async function restoreVersion(plural: string, project: string | undefined, name: string, version: number): Promise<Resource> {
  return (await call('POST', `${resourcePath(plural, project, name)}/versions/${version}/restore`)).json() as Promise<Resource>;
}

/** A display name if the resource has one (spec.display.name), else its name. */
export function displayName(r: Resource): string {
  const display = (r.spec as { display?: { name?: string } } | undefined)?.display?.name;
  return display?.trim() ? display : r.metadata.name;
}

/** POST /api/validate/{plural}: nothing stored; the warnings of a valid object (none: []), or an ApiError. */
export async function validationWarnings(plural: string, body: unknown): Promise<ErrorDetail[]> {
  const text = await (await call('POST', `/api/validate/${plural}`, body)).text();
  return text ? ((JSON.parse(text) as { warnings?: ErrorDetail[] }).warnings ?? []) : [];
}

/**
 * POST a new resource; answers the stored object (400 with details when invalid, 409 when the name
 * is taken). `dryRun` validates only.
 */
export async function createResource<T = Resource>(plural: string, project: string | undefined, body: unknown, dryRun = false): Promise<T> {
  return (await call('POST', resourcePath(plural, project) + (dryRun ? '?dryRun=true' : ''), body)).json() as Promise<T>;
}

/** DELETE, with If-Match when the version the user saw is known. */
export async function deleteResource(plural: string, project: string | undefined, name: string, version?: number): Promise<void> {
  await call('DELETE', resourcePath(plural, project, name), undefined, version !== undefined ? { 'If-Match': `"${version}"` } : {});
}

/** A copy of an object for a new name (and project): server metadata dropped. */
export function copyOf(r: Resource, name: string, project?: string): Resource {
  return {
    kind: r.kind,
    metadata: { name, ...(project ? { project } : {}), ...(r.metadata.tags ? { tags: r.metadata.tags } : {}) },
    spec: structuredClone(r.spec),
  };
}

/** One element of a migration report (see the server's src/migrate/report.ts). */
export interface ReportEntry {
  subject: 'dashboard' | 'panel' | 'variable' | 'annotation' | 'link';
  source: string;
  path?: string;
  result?: string;
  outcome: 'mapped' | 'approximated' | 'unrendered' | 'placeholder' | 'dropped';
  notes: string[];
  /** Panels and variables: whether this web UI draws the result, and if not, why. */
  render?: { renders: boolean; reasons: string[] };
}

export interface ReportCounts {
  total: number;
  mapped: number;
  approximated: number;
  unrendered: number;
  placeholder: number;
  dropped: number;
}

export interface MigrationReport {
  summary: { panels: ReportCounts; variables: ReportCounts; queries: ReportCounts; other: ReportCounts };
  entries: ReportEntry[];
}

/** POST /api/migrate?report=true: a Grafana dashboard as a Perses one, with the report. Nothing is stored. */
export async function migrateGrafana(
  grafanaDashboard: unknown,
  params: { project?: string; datasource?: string; name?: string },
): Promise<{ dashboard: Resource; report: MigrationReport }> {
  const qs = new URLSearchParams({ report: 'true', ...Object.fromEntries(Object.entries(params).filter(([, v]) => v)) }).toString();
  return (await call('POST', `/api/migrate?${qs}`, { grafanaDashboard })).json() as Promise<{
    dashboard: Resource;
    report: MigrationReport;
  }>;
}
