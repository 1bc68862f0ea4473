import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, badRequest, notFound } from '../errors.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { KindRegistry } from '../kinds/registry.js';
import { Readable } from 'node:stream';
import { datasourcePath } from '../proxy/cache-policies.js';
import { type Credentials, credentialsOf } from '../proxy/credentials.js';
import { splitTarget } from '../proxy/path.js';
import { type DatasourceSpec, DerivedCache, type ProxyPlan, proxyPlan, type QueryEndpoint } from '../proxy/plan.js';
import type { PoolOwner } from '../proxy/sql/sql-pools.js';
import type { SqlProxy } from '../proxy/sql/sql-proxy.js';
import { unsavedRequest } from '../proxy/unsaved-request.js';
import { forwardHttp, type HttpProxyParts } from './proxy-http.js';
import { answerSql } from './sql-proxy-route.js';
import { documented } from './route-doc.js';
import { type Family, proxyDoc, unsavedDoc } from './proxy-docs.js';
import { assertName } from '../lib/names.js';
import type { ResourceService } from '../resources/service.js';
import type { SecretSpec } from '../kinds/generated/types.js';
import { DecryptError, type SecretBox } from '../secrets/secret-box.js';
import { unseal } from '../secrets/sealing.js';
import type { Envelope, ObjectKey, ObjectStore } from '../storage/store.js';
import type { ResolvedConfig } from '../config.js';
import { getPath } from '../lib/object-path.js';
import { isServed } from './resource-router.js';

export interface ProxyRouteOptions extends HttpProxyParts {
  registry: KindRegistry;
  service: ResourceService;
  store: ObjectStore;
  secrets: SecretBox;
  /** The read-only query calls of a datasource plugin kind (the plugin catalog's `queries`), for the query cache. */
  queriesOf?: (pluginKind: string) => readonly QueryEndpoint[] | undefined;
  /** Queries of SQL datasources (`{kind: SQLProxy}`). */
  sql: SqlProxy;
  /** security.secret_files_dir, for *File secret fields. */
  secretFilesDir?: string;
  /** The server configuration: which datasource families are served. */
  config?: Readonly<ResolvedConfig>;
}

const FAMILIES: Family[] = [
  { path: '/proxy/globaldatasources/:name', plural: 'globaldatasources', suffixAt: 4 },
  { path: '/proxy/projects/:project/datasources/:name', plural: 'datasources', suffixAt: 6 },
  {
    path: '/proxy/projects/:project/dashboards/:dashboard/datasources/:name',
    plural: 'dashboards',
    suffixAt: 8,
    offWhen: 'datasource.disable_local',
  },
];

/** The families this configuration serves: their kind is served and no key turns them off. */
function servedFamilies(o: ProxyRouteOptions): { f: Family; d: KindDescriptor }[] {
  return FAMILIES.map((f) => ({ f, d: o.registry.byPluralName(f.plural)! })).filter(
    ({ f, d }) => isServed(d, o.config) && !(f.offWhen && getPath(o.config, f.offWhen) === true),
  );
}

type Params = { project?: string; dashboard?: string; name: string };

/** What a datasource without a Secret sends: nothing. */
const NO_CREDENTIALS: Credentials = Object.freeze({ identity: '' });

/** What the proxy keeps of stored objects while they are unchanged (see DerivedCache). */
interface Caches {
  plans: DerivedCache<ProxyPlan>;
  credentials: DerivedCache<Credentials>;
}

/**
 * The datasource proxy: every method, bodies streamed both ways, credentials from
 * the datasource's Secret, the caller's own credentials and our cookies never forwarded.
 * Bodies are not parsed here: the request stream goes upstream as it arrives.
 */
export function registerProxyRoutes(app: FastifyInstance, o: ProxyRouteOptions): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
    const caches: Caches = { plans: new DerivedCache(), credentials: new DerivedCache() };
    for (const { f, d } of servedFamilies(o)) {
      const handler = (req: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => proxy(o, caches, d, f, req, reply);
      scope.all(f.path, { config: { proxy: true, doc: proxyDoc(f) } }, handler);
      scope.all(`${f.path}/*`, { config: { proxy: true, doc: proxyDoc(f) } }, handler);
    }
  });
  for (const { f, d } of servedFamilies(o)) {
    const base = `/proxy/unsaved${f.path.slice('/proxy'.length).replace(/\/:name$/, '')}`;
    const handler = (req: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => unsaved(o, d, f, req, reply);
    app.post(base, documented(unsavedDoc(f)), handler);
    app.post(`${base}/*`, documented(unsavedDoc(f)), handler);
  }
}

async function proxy(
  o: ProxyRouteOptions,
  caches: Caches,
  d: KindDescriptor,
  f: Family,
  req: FastifyRequest<{ Params: Params }>,
  reply: FastifyReply,
) {
  refuseLoop(req);
  const { project, dashboard, name } = checkedParams(req.params);
  // the stored text, read with the same permission check as a GET: the same object while unchanged
  const stored = await o.service.getText(req.principal, d, project ?? '', dashboard ?? name);
  const plan = caches.plans.get(stored, name, () => {
    const holder = JSON.parse(stored.text.toString()) as Envelope;
    const spec = d.datasourceSpec!(holder, name) as DatasourceSpec | undefined;
    if (!spec) throw notFound(`dashboard "${dashboard}" has no datasource "${name}"`);
    return proxyPlan(name, spec, o.queriesOf);
  });
  const { suffix, query } = splitTarget(req.raw.url ?? '', f.suffixAt);
  const hasBody =
    req.method !== 'GET' &&
    req.method !== 'HEAD' &&
    (req.headers['content-length'] !== undefined ? req.headers['content-length'] !== '0' : req.headers['transfer-encoding'] !== undefined);
  const owner = { holder: `${d.kind}/${project ?? ''}/${dashboard ?? name}`, name };
  const datasource = datasourcePath(project, dashboard, name);
  return serve(
    o,
    caches,
    {
      d,
      project,
      name,
      plan,
      method: req.method,
      suffix,
      query,
      headers: req.headers,
      owner,
      datasource,
      ...(hasBody ? { body: req.raw } : {}),
    },
    req,
    reply,
  );
}

/**
 * Perses 0.54's connection test of a datasource being edited: `POST /proxy/unsaved/...` with
 * `{method, spec, body}`. It may lend credentials just like saving would, so it needs the same
 * permissions as saving the datasource (and reading the Secret it names).
 */
async function unsaved(
  o: ProxyRouteOptions,
  d: KindDescriptor,
  f: Family,
  req: FastifyRequest<{ Params: Params; Body: unknown }>,
  reply: FastifyReply,
) {
  refuseLoop(req);
  const { project, dashboard } = checkedParams({ ...req.params, name: 'unsaved' });
  const target = dashboard ?? 'unsaved';
  await o.service.authorize(req.principal, dashboard ? 'update' : 'create', d, project, target);
  // The whole body, proxy block included, is checked before the secret it names is authorized.
  const b = unsavedRequest(req.body);
  const holder = {
    kind: d.kind,
    metadata: { name: target, ...(project ? { project } : {}), createdAt: '', updatedAt: '', version: 0 },
    spec: dashboard ? { datasources: { unsaved: b.spec } } : b.spec,
  };
  for (const secret of new Set(d.secretRefs?.(holder) ?? []))
    await o.service.authorize(req.principal, 'read', o.registry.byName(d.secretKind!)!, project, secret);
  const { suffix, query } = splitTarget(req.raw.url ?? '', f.suffixAt);
  const body = b.body !== undefined ? Readable.from([Buffer.from(b.body)]) : undefined;
  // The caller's Content-* headers describe the JSON envelope, not the upstream body.
  const headers = Object.fromEntries(Object.entries(req.headers).filter(([n]) => !n.startsWith('content-')));
  return serve(
    o,
    undefined,
    {
      d,
      project,
      name: 'unsaved',
      plan: proxyPlan('unsaved', b.spec as DatasourceSpec, o.queriesOf),
      method: b.method,
      suffix,
      query,
      headers,
      ...(body ? { body } : {}),
    },
    req,
    reply,
  );
}

interface Exchange<P extends ProxyPlan = ProxyPlan> {
  d: KindDescriptor;
  project: string | undefined;
  name: string;
  plan: P;
  /** The stored datasource (its SQL connection pool); none for an unsaved one. */
  owner?: Omit<PoolOwner, 'secret'>;
  /** The stored datasource as its URLs name it (the query cache's settings and keys); none for an unsaved one. */
  datasource?: string;
  method: string;
  /** Raw (still encoded) path after the datasource name. */
  suffix: string;
  query: string;
  body?: Readable;
  /** The caller's headers to filter and forward. */
  headers: IncomingHttpHeaders;
}

/** Serves an exchange with the proxy of its datasource's proxy block: HTTP (forward) or SQL (answerSql). */
function serve(o: ProxyRouteOptions, caches: Caches | undefined, x: Exchange, req: FastifyRequest, reply: FastifyReply) {
  const { plan } = x;
  if (plan.kind === 'HTTPProxy') {
    const secret = plan.proxy.secret;
    return forwardHttp(
      o,
      {
        plan,
        label: `${x.d.kind}/${x.project ?? ''}/${x.name}`,
        ...(x.datasource !== undefined ? { datasource: x.datasource } : {}),
        method: x.method,
        suffix: x.suffix,
        query: x.query,
        headers: x.headers,
        ...(x.body ? { body: x.body } : {}),
        credentials: async () => (secret !== undefined ? secretCredentials(o, caches, x.d, x.project, secret, req) : NO_CREDENTIALS),
      },
      req,
      reply,
    );
  }
  const secret = plan.proxy.secret;
  const key = secret === undefined ? undefined : secretKey(o, x.d, x.project, secret);
  return answerSql(
    o.sql,
    {
      plan,
      method: x.method,
      id: `${x.d.kind}/${x.project ?? ''}/${x.name}`,
      credentials: async () => (secret === undefined ? undefined : secretCredentials(o, caches, x.d, x.project, secret, req)),
      ...(x.body ? { body: x.body } : {}),
      ...(x.owner ? { owner: { ...x.owner, ...(key ? { secret: `${key.kind}/${key.project}/${key.name}` } : {}) } } : {}),
      ...(key ? { secretLabel: `${key.kind} "${key.name}"` } : {}),
    },
    reply,
    o.metrics,
  );
}

function refuseLoop(req: FastifyRequest): void {
  if (String(req.headers.via ?? '').includes('dashplane'))
    throw new ApiError(
      'LoopDetected',
      'this request already went through a dashplane proxy; a datasource must not point back at dashplane',
    );
}

function checkedParams(p: Params): Params {
  if (p.project !== undefined) assertName(p.project, 'project in the URL path');
  if (p.dashboard !== undefined) assertName(p.dashboard, 'dashboard in the URL path');
  // a dashboard's own datasource is a key of its spec.datasources, which may hold any title
  // ("Victoria Metrics" in Perses' own test dashboard): only looked up there, never a storage key
  if (p.dashboard !== undefined) assertLocalName(p.name);
  else assertName(p.name, 'datasource name in the URL path');
  return p;
}

function assertLocalName(name: string): void {
  if (name === '' || name === '.' || name === '..' || name.length > 256 || /[/\\\u0000-\u001f\u007f]/.test(name)) {
    throw badRequest(
      `the name is invalid: datasource name in the URL path ${JSON.stringify(name)} must be a key of the dashboard's spec.datasources (1 to 256 characters, no slash or control character)`,
    );
  }
}

/**
 * The Authorization header and TLS material of the datasource's Secret (same scope as the
 * datasource), decrypted once per stored version of the Secret; values read from *File fields
 * are read again on every request (a mounted file may be rotated at any time).
 */
async function secretCredentials(
  o: ProxyRouteOptions,
  caches: Caches | undefined,
  d: KindDescriptor,
  project: string | undefined,
  secretName: unknown,
  req: FastifyRequest,
): Promise<Credentials> {
  const key = secretKey(o, d, project, secretName);
  const kind = o.registry.byName(key.kind)!;
  const stored = await o.store.getText(key, { synced: req.principal.synced });
  if (!stored) throw badRequest(`the datasource names ${kind.kind} "${secretName}", which does not exist`);
  const make = () => decryptedCredentials(o, kind, JSON.parse(stored.text.toString()) as Envelope, req);
  return caches ? caches.credentials.get(stored, '', make, (c) => !c.files) : make();
}

/** Where the Secret a datasource names is stored: a Secret of its project, a GlobalSecret for a GlobalDatasource. */
function secretKey(o: ProxyRouteOptions, d: KindDescriptor, project: string | undefined, secretName: unknown): ObjectKey {
  assertName(secretName, "the datasource's proxy.spec.secret");
  const kind = o.registry.byName(d.secretKind!)!;
  return { kind: kind.kind, project: kind.scope === 'project' ? (project ?? '') : '', name: secretName };
}

/** The credentials of a stored Secret: decrypted (a value that does not decrypt is a 502, logged), then read. */
function decryptedCredentials(o: ProxyRouteOptions, kind: KindDescriptor, stored: Envelope, req: FastifyRequest): Credentials {
  const id = `${kind.kind}/${stored.metadata.project ?? ''}/${stored.metadata.name}`;
  let spec: SecretSpec;
  try {
    spec = unseal(kind, stored, o.secrets).spec as SecretSpec;
  } catch (e) {
    if (!(e instanceof DecryptError)) throw e;
    req.log.error({ secret: id, reason: e.message }, 'cannot decrypt a datasource secret');
    throw new ApiError('BadGateway', "the datasource's secret cannot be used (it does not decrypt); see the server log");
  }
  return credentialsOf({ spec, id, version: stored.metadata.version }, o.secretFilesDir);
}
