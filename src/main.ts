import type { FastifyInstance } from 'fastify';
import { join } from 'node:path';
import { assertSharedKey, openStore, usesPostgres } from './admin/open-store.js';
import { buildApp } from './api/app.js';
import { bodyLimitsOf } from './api/body-limits.js';
import { parseJson } from './api/body-parsers.js';
import { yamlBodyToJson } from './api/yaml-body.js';
import { serverLogger } from './api/log-destination.js';
import type { AuthRouteOptions } from './api/auth-routes.js';
import type { ExternalAuthOptions } from './api/external-auth-routes.js';
import { openInstallationWarning, signUpBesideProvidersWarning } from './auth/exposure.js';
import { anonymousAuthenticator, type Authenticator } from './auth/authenticator.js';
import { allowAll, readOnly, type Authorizer } from './access/authorizer.js';
import { AuditKeeper } from './audit/audit-keeper.js';
import type { AuditCoalescer } from './audit/coalescer.js';
import { bootstrapAdmin } from './admin/bootstrap.js';
import { loadKeyRing } from './auth/keys.js';
import { PasswordHasher } from './access/passwords.js';
import type { SessionStore } from './auth/sessions.js';
import type { ApiTokens } from './auth/api-tokens.js';
import { composeAuth } from './compose-auth.js';
import type { ExternalProvider } from './auth/provider.js';
import { readBuildInfo } from './build-info.js';
import type { ResolvedConfig } from './config.js';
import { buildKindRegistry } from './kinds/index.js';
import { PACKAGE_ROOT, SCHEMAS_DIR } from './paths.js';
import { checkSecretKeys } from './secrets/key-check.js';
import { SecretBox } from './secrets/secret-box.js';
import { Metrics } from './api/metrics.js';
import { Reaper } from './controllers/reaper.js';
import { provisioningSettings } from './controllers/provisioning/from-config.js';
import { Provisioner } from './controllers/provisioning/provisioner.js';
import { instrumentStore } from './storage/instrumented-store.js';
import { Watcher } from './controllers/watcher.js';
import { PluginRegistry } from './plugins/registry.js';
import { Upstream } from './proxy/upstream.js';
import { DeniedNetworks } from './proxy/denied-networks.js';
import { OAuthTokens } from './proxy/oauth-tokens.js';
import { SqlProxy } from './proxy/sql/sql-proxy.js';
import { CachePolicies } from './proxy/cache-policies.js';
import { QueryCache } from './proxy/query-cache.js';
import { durationMs } from './lib/duration.js';
import { parseListen } from './lib/listen.js';
import { deferredLog, type LogFn } from './lib/log-fn.js';
import type { CredentialChange } from './resources/credentials.js';
import { ResourceService, type ServiceOptions } from './resources/service.js';
import type { Store } from './storage/store.js';

/** A running server: its app, store and the address it listens on. */
export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  service: ResourceService;
  /** The password hasher (logins and password writes queue on it). */
  passwords: PasswordHasher;
  /** e.g. http://127.0.0.1:8080 */
  url: string;
  close(): Promise<void>;
}

export interface StartOptions {
  /** pino options or false (tests). */
  logger?: boolean | Record<string, unknown>;
}

/** How often expired sessions are removed from the store. */
const SESSION_SWEEP_MS = 3_600_000;

/** The composition root: config -> registry -> store -> services -> app -> listen. */
export async function startServer(config: Readonly<ResolvedConfig>, opts: StartOptions = {}): Promise<RunningServer> {
  const registry = buildKindRegistry();
  const plugins = PluginRegistry.load(join(SCHEMAS_DIR, 'plugins'), config.plugin.schemas_dir);
  const dataDir = config.database.level.path;
  const security = config.security;
  const authn = security.authentication;
  const passwords = new PasswordHasher({ logN: authn.password_hash_cost, concurrency: 2, maxQueue: 64 });
  assertSharedKey(config);
  const build = readBuildInfo();
  let watcherRef: Watcher | undefined;
  const metrics = new Metrics(build, () => watcherRef?.openStreams ?? 0);
  // the store may log before the server's logger exists (a data directory narrowed at open)
  const storeLog = deferredLog();
  const store = instrumentStore(openStore(config, process.env, { log: storeLog.log }), metrics);
  await store.open();
  const startupLog: string[] = [];
  let secrets: SecretBox;
  let authenticator: Authenticator = anonymousAuthenticator;
  let authorizer: Authorizer = allowAll;
  let auth: Omit<AuthRouteOptions, 'service'> | undefined;
  let external: Omit<ExternalAuthOptions, 'service'> | undefined;
  /** The service exists after the authenticator; provider tokens need it only at request time. */
  const serviceRef: { current?: ResourceService } = {};
  let sessions: SessionStore | undefined;
  let apiTokens: ApiTokens | undefined;
  let auditCounts: AuditCoalescer | undefined;
  let namedByGrants: ServiceOptions['namedByGrants'];
  /** Warnings of parts built before the app (its logger). */
  const lateLog = { warn: (_e: unknown): void => undefined };
  try {
    const keys = loadKeyRing({
      key: security.encryption_key,
      keyFile: security.encryption_key_file,
      previous: security.previous_encryption_keys,
      dataDir,
    });
    startupLog.push(`encryption key from ${keys.source}`);
    secrets = new SecretBox(keys.master, keys.previous);
    const damaged = await checkSecretKeys(store, registry, secrets);
    if (damaged > 0)
      startupLog.push(`warning: ${damaged} stored secret values do not decrypt (altered or moved); they will fail where used`);
    if (security.enable_auth) {
      // the OIDC/OAuth libraries are loaded only when a provider is configured (100+ ms of start-up)
      const { oidc, oauth } = security.authentication.providers;
      const providers =
        oidc?.length || oauth?.length
          ? (await import('./auth/external.js')).buildProviders(oidc, oauth)
          : new Map<string, ExternalProvider>();
      const parts = composeAuth({
        config,
        registry,
        store,
        keys,
        secrets,
        passwords,
        metrics,
        providers,
        service: () => serviceRef.current!,
        warn: (e) => lateLog.warn(e),
      });
      ({ authenticator, authorizer, auth, external, sessions } = parts);
      apiTokens = parts.apiTokens;
      auditCounts = parts.audit;
      namedByGrants = (subject) => parts.authorizer.namesSubject(subject);
      if (external) startupLog.push(`identity providers: ${[...external.providers.keys()].join(', ')}`);
    }
    if (security.readonly) authorizer = readOnly(authorizer);
  } catch (e) {
    await store.close();
    throw e;
  }
  // a user changing their own password keeps the session they did it in
  const keeper = sessions;
  const service = new ResourceService({
    registry,
    store,
    plugins,
    authorizer,
    passwords,
    secrets,
    config,
    ...(keeper ? { credentialsChanging: (c: CredentialChange) => keeper.keepCaller(c) } : {}),
    ...(namedByGrants ? { namedByGrants } : {}),
  });
  serviceRef.current = service;
  const revocation = authenticator.revocation;
  const backlog = { maxEvents: config.watch.max_backlog_events, maxBytes: config.watch.max_backlog_bytes };
  const watcher = new Watcher({
    store,
    registry,
    authorizer,
    bookmarkMs: durationMs(config.watch.bookmark_interval),
    backlog,
    ...(revocation ? { revocation } : {}),
  });
  watcherRef = watcher;
  const provisioningLog = deferredLog();
  const bodyLimits = bodyLimitsOf(config.http);
  const provisioner = new Provisioner({
    // with PostgreSQL, each replica clones for itself (a temporary directory unless work_dir is set)
    ...provisioningSettings(config, config.provisioning.work_dir ?? (usesPostgres(config) ? undefined : join(dataDir, 'provisioning-git'))),
    service,
    store,
    registry,
    // files are read as request bodies are: the same limits and hardening (a file is read on the
    // event loop, one at a time with a turn of the loop between them: YAML costs linear time here)
    parsers: { json: (text) => parseJson(text, bodyLimits), yaml: (text) => parseJson(yamlBodyToJson(text, bodyLimits), bodyLimits) },
    log: provisioningLog.log,
    onWrite: (source, action) => metrics.provisioningWrites.inc({ source, action }),
  });
  metrics.watchProvisioning(() => provisioner.status());
  const px = config.proxy;
  const denied = DeniedNetworks.fromConfig(px, security.enable_auth);
  startupLog.push(denied.describe());
  const upstream = new Upstream({
    timeoutMs: durationMs(px.timeout),
    maxDurationMs: durationMs(px.max_duration),
    maxConcurrent: px.max_concurrent,
    denied,
  });
  const sql = new SqlProxy({
    limits: {
      statementTimeoutMs: durationMs(px.sql.statement_timeout),
      maxRows: px.sql.max_rows,
      maxBytes: px.sql.max_bytes,
      maxConnections: px.sql.max_connections,
      connectTimeoutMs: durationMs(px.timeout),
    },
    statementTimeout: px.sql.statement_timeout,
    maxConcurrent: px.max_concurrent,
    denied,
    onEvent: (listener) => store.onEvent(listener),
  });
  const MiB = 1024 * 1024;
  const answers = new QueryCache({
    maxBytes: px.cache.max_size_mb * MiB,
    maxEntries: px.cache.max_entries,
    maxAnswerBytes: px.cache.max_answer_mb * MiB,
  });
  metrics.watchProxyCache(() => answers.stats());
  /** The proxies' connections: undici's agents, the SQL pools. */
  const proxies = { close: () => Promise.all([upstream.close(), sql.close()]).then(() => undefined) };
  const app = buildApp({
    config,
    registry,
    plugins,
    service,
    store,
    authenticator,
    ...(auth ? { auth: { ...auth, service } } : {}),
    ...(external ? { external: { ...external, service, ...(config.api_prefix ? { prefix: config.api_prefix } : {}) } } : {}),
    watcher,
    metrics,
    audit: {
      store,
      authorizer,
      bookmarkMs: durationMs(config.watch.bookmark_interval),
      projectKind: registry.projectKind.kind,
      ...(revocation ? { revocation } : {}),
    },
    provisioning: provisioner,
    proxy: {
      registry,
      service,
      store,
      secrets,
      upstream,
      tokens: new OAuthTokens(upstream),
      sql,
      metrics,
      queriesOf: (kind) => plugins.queriesOf(kind),
      cache: { answers, policies: new CachePolicies(px.cache) },
      config,
      ...(security.secret_files_dir ? { secretFilesDir: security.secret_files_dir } : {}),
    },
    build,
    ...(config.frontend.disable
      ? {}
      : { ui: { dir: join(PACKAGE_ROOT, 'ui', 'dist'), ...(config.api_prefix ? { prefix: config.api_prefix } : {}) } }),
    logger: opts.logger ?? serverLogger(config.log.level),
  });
  const timers: NodeJS.Timeout[] = [];
  const reaper = new Reaper({
    store,
    registry,
    service,
    sweepMs: durationMs(config.ephemeral_dashboard.cleanup_interval),
    log: (msg, err) => app.log.error({ err }, msg),
    onDeleted: () => metrics.reaperDeletions.inc(),
  });
  lateLog.warn = (e) => app.log.warn({ err: e }, 'an audit entry could not be written');
  const toAppLog: LogFn = (level, msg, err) => app.log[level](err === undefined ? {} : { err }, msg);
  storeLog.attach(toAppLog);
  provisioningLog.attach(toAppLog);
  const auditKeeper = new AuditKeeper({
    store,
    retentionMs: durationMs(config.audit.retention),
    ...(config.audit.file ? { file: config.audit.file } : {}),
    log: (msg, err) => app.log.warn({ err }, msg),
  });
  try {
    await reaper.start();
    await auditKeeper.start();
    if (security.bootstrap_admin) {
      const line = await bootstrapAdmin(security.bootstrap_admin, registry, service);
      if (line) startupLog.push(line);
    }
    // after the administrator: provisioned bindings may name it; passes run in the background
    provisioner.start();
    if (sessions) {
      const s = sessions;
      const t = apiTokens;
      const sweep = () =>
        void Promise.all([s.sweep(), t?.sweep()]).catch((e: unknown) => app.log.warn({ err: e }, 'session and token sweep failed'));
      sweep();
      timers.push(setInterval(sweep, SESSION_SWEEP_MS).unref());
    }
    const { host, port } = parseListen(config.listen);
    await app.listen({ host, port }).catch((e: Error) => {
      throw new Error(`cannot listen on ${config.listen}: ${e.message}`);
    });
  } catch (e) {
    timers.forEach(clearInterval);
    await provisioner.stop();
    await reaper.stop();
    await auditKeeper.stop();
    await app.close();
    await proxies.close();
    await store.close();
    throw e;
  }
  const exposed = openInstallationWarning(security, registry.all().find((d) => d.isProjectScope)!.kind, denied.networks);
  if (exposed) startupLog.push(exposed);
  const squattable = signUpBesideProvidersWarning(security);
  if (squattable) startupLog.push(squattable);
  for (const line of startupLog) {
    if (line.startsWith('warning: ')) app.log.warn(line);
    else app.log.info(line);
  }
  const stopBackground = async () => {
    timers.forEach(clearInterval);
    await provisioner.stop();
    // the refusals still being counted are written first, so the audit file receives them too
    await auditCounts?.stop();
    await reaper.stop();
    await auditKeeper.stop();
  };
  return running(app, store, service, passwords, config, stopBackground, proxies);
}

function running(
  app: FastifyInstance,
  store: Store,
  service: ResourceService,
  passwords: PasswordHasher,
  config: Readonly<ResolvedConfig>,
  stopBackground: () => Promise<void>,
  proxies: { close(): Promise<void> },
): RunningServer {
  const addr = app.server.address();
  const { host, port } = parseListen(config.listen);
  const actualPort = typeof addr === 'object' && addr ? addr.port : port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`;
  let closing: Promise<void> | undefined;
  return {
    app,
    store,
    service,
    passwords,
    url,
    close: () =>
      (closing ??= (async () => {
        await stopBackground();
        // Stop accepting, let in-flight requests finish within the grace period, then cut.
        const grace = setTimeout(() => app.server.closeAllConnections(), durationMs(config.http.shutdown_grace)).unref();
        await app.close();
        clearTimeout(grace);
        await proxies.close();
        await store.close();
      })()),
  };
}
