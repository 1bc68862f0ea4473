import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../test/helpers/server.js';
import { SCHEMAS_DIR } from './paths.js';
import { getPath } from './lib/object-path.js';
import { ConfigError, loadConfig, publicConfig, resolveConfig } from './config.js';
import { buildKindRegistry } from './kinds/index.js';

function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).to.be.instanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration', () => {
  const dir = tempDir();
  after(() => dir.remove());
  const file = (name: string, text: string) => {
    const path = join(dir.path, name);
    writeFileSync(path, text);
    return path;
  };

  it('defaults: 127.0.0.1:8080, ./data, auth off, 50 versions', () => {
    const { config } = loadConfig({});
    expect(config.listen).to.equal('127.0.0.1:8080');
    expect(config.database?.level?.path).to.equal('./data');
    expect(config.security?.enable_auth).to.equal(false);
    expect(config.history?.max_versions).to.equal(50);
    expect(Object.isFrozen(config)).to.equal(true);
  });

  it('resolveConfig: every key with a default is filled in, nested ones of a section given in part too; frozen; problems are ConfigErrors', () => {
    const full = resolveConfig();
    expect(full).to.deep.equal(loadConfig({}).config);
    const walk = (schema: { properties?: Record<string, { default?: unknown; properties?: unknown }> }, at: string[]): string[] =>
      Object.entries(schema.properties ?? {}).flatMap(([k, sub]) => [
        ...(sub.default !== undefined ? [[...at, k].join('.')] : []),
        ...(sub.default !== undefined ? walk(sub as never, [...at, k]) : []),
      ]);
    const defaulted = walk(JSON.parse(readFileSync(join(SCHEMAS_DIR, 'config.json'), 'utf8')), []);
    expect(defaulted.length).to.be.greaterThan(40);
    for (const path of defaulted) expect(getPath(full, path), path).to.not.equal(undefined);
    const partial = resolveConfig({ database: { postgres: { url: 'postgres://h/db' } }, security: { cookie: { secure: false } } });
    expect(partial.database.postgres?.pool_size, "a section without a default gets its keys' defaults").to.equal(10);
    expect(partial.security.cookie).to.deep.equal({ same_site: 'lax', secure: false });
    expect(Object.isFrozen(partial.security.cookie)).to.equal(true);
    expect(configError(() => resolveConfig({ history: { max_versions: 0 } }))).to.match(/history\.max_versions/);
  });

  it('every configuration key a kind descriptor names (enabledBy, anonymousCreateUnless) is a boolean key', () => {
    const named = buildKindRegistry()
      .all()
      .flatMap((d) => [d.enabledBy, d.anonymousCreateUnless].filter((p): p is string => p !== undefined));
    expect(named).to.have.length.greaterThan(0);
    for (const path of named) expect(typeof getPath(resolveConfig(), path), path).to.equal('boolean');
  });

  it('file, then environment, then --listen; env names follow the key path', () => {
    const f = file('a.yaml', 'listen: 0.0.0.0:9000\nhistory:\n  max_versions: 7\ndatabase:\n  level:\n    path: /from/file\n');
    const { config, warnings } = loadConfig({
      file: f,
      env: {
        DASHPLANE_DATABASE_LEVEL_PATH: '/from/env',
        DASHPLANE_SECURITY_ENABLE_AUTH: 'true',
        DASHPLANE_PORT: 'tcp://10.0.0.1:80',
        PATH: '/bin',
      },
      listen: '127.0.0.1:1234',
    });
    expect(config.listen).to.equal('127.0.0.1:1234');
    expect(config.history?.max_versions).to.equal(7);
    expect(config.database?.level?.path).to.equal('/from/env');
    expect(config.security?.enable_auth).to.equal(true);
    expect(warnings).to.deep.equal(['ignoring environment variable DASHPLANE_PORT: it names no configuration key']);
  });

  it('identity providers configured while authentication is off are named in a warning (they would be silently unused)', () => {
    const providers =
      'security:\n  authentication:\n    providers:\n      oidc:\n        - slug_id: corp\n          name: Corp\n          client_id: dashplane\n          issuer: https://idp.example.com\n';
    const off = loadConfig({ file: file('p.yaml', providers) });
    expect(off.warnings).to.deep.equal([
      'security.authentication.providers names 1 identity provider(s), but security.enable_auth is false: nobody signs in, so they are not used',
    ]);
    expect(loadConfig({ file: file('p2.yaml', providers), env: { DASHPLANE_SECURITY_ENABLE_AUTH: 'true' } }).warnings).to.deep.equal([]);
  });

  it('an unknown key is an error naming it', () => {
    const msg = configError(() => loadConfig({ file: file('b.yaml', 'histroy:\n  max_versions: 3\n') }));
    expect(msg).to.match(/histroy/);
  });

  it('a bad value is an error naming the key and the expected type', () => {
    expect(configError(() => loadConfig({ file: file('c.yaml', 'history:\n  max_versions: lots\n') }))).to.match(
      /history\.max_versions.*integer/,
    );
    expect(configError(() => loadConfig({ env: { DASHPLANE_SECURITY_ENABLE_AUTH: 'maybe' } }))).to.match(
      /DASHPLANE_SECURITY_ENABLE_AUTH must be true or false/,
    );
    expect(configError(() => loadConfig({ env: { DASHPLANE_HISTORY_MAX_VERSIONS: 'x' } }))).to.match(
      /DASHPLANE_HISTORY_MAX_VERSIONS must be a number/,
    );
  });

  it('a headers timeout longer than the request timeout is an error naming both keys', () => {
    const msg = configError(() => loadConfig({ env: { DASHPLANE_HTTP_HEADERS_TIMEOUT: '2m', DASHPLANE_HTTP_REQUEST_TIMEOUT: '1m' } }));
    expect(msg).to.match(/http\.headers_timeout.*http\.request_timeout/);
  });

  it('a proxy.denied_networks entry that is not an address or network in its usual form is an error naming the entry', () => {
    const msg = configError(() =>
      loadConfig({ env: { DASHPLANE_PROXY_DENIED_NETWORKS: '["10.0.0.0/8", "10/8", "999.1.1.1", "::1/129"]' } }),
    );
    expect(msg).to.contain('proxy.denied_networks[1]: "10/8"').and.contain('[2]').and.contain('[3]').and.not.contain('[0]');
    expect(
      loadConfig({ env: { DASHPLANE_PROXY_DENIED_NETWORKS: '["10.0.0.0/8", "fd00::/8", "192.168.1.5"]' } }).config.proxy.denied_networks,
    ).to.have.length(3);
  });

  it("a Perses configuration's security.cors loads as written (Perses' keys, YAML and environment), off by default with Perses' defaults", () => {
    expect(resolveConfig().security.cors).to.deep.equal({
      enable: false,
      allow_origins: ['*'],
      allow_methods: [],
      allow_headers: [],
      allow_credentials: false,
      expose_headers: [],
      max_age: 0,
    });
    const perses = file(
      'cors.yaml',
      'security:\n  cors:\n    enable: true\n    allow_origins: ["https://gitlab.com", "https://github.com"]\n    allow_methods: ["OPTIONS", "GET"]\n    allow_headers: ["Content-Type"]\n    expose_headers: ["ETag"]\n    allow_credentials: true\n    max_age: 86400\n',
    );
    const { config } = loadConfig({ file: perses, env: { DASHPLANE_SECURITY_CORS_MAX_AGE: '600' } });
    expect(config.security.cors).to.deep.equal({
      enable: true,
      allow_origins: ['https://gitlab.com', 'https://github.com'],
      allow_methods: ['OPTIONS', 'GET'],
      allow_headers: ['Content-Type'],
      expose_headers: ['ETag'],
      allow_credentials: true,
      max_age: 600,
    });
    expect(
      configError(() =>
        loadConfig({ file: file('cors2.yaml', 'security:\n  cors:\n    enable: true\n    allow_orgins: ["https://a.example"]\n') }),
      ),
    ).to.match(/security\.cors.*allow_orgins/);
  });

  it('security.cors never allows credentials to every origin: "*" (also as the default origins) with allow_credentials is an error saying to list the origins', () => {
    for (const env of [
      { DASHPLANE_SECURITY_CORS_ALLOW_CREDENTIALS: 'true' },
      { DASHPLANE_SECURITY_CORS_ALLOW_CREDENTIALS: 'true', DASHPLANE_SECURITY_CORS_ALLOW_ORIGINS: '["https://a.example", "*"]' },
    ]) {
      expect(configError(() => loadConfig({ env }))).to.match(
        /security\.cors\.allow_credentials.*security\.cors\.allow_origins.*list the origins/,
      );
    }
    expect(
      loadConfig({
        env: { DASHPLANE_SECURITY_CORS_ALLOW_CREDENTIALS: 'true', DASHPLANE_SECURITY_CORS_ALLOW_ORIGINS: '["https://*.example.com"]' },
      }).config.security.cors.allow_credentials,
    ).to.equal(true);
  });

  it("provisioning: Perses' keys as a Perses configuration writes them; an interval of 0 and (PROV-01) a Git URL holding credentials are errors naming the key and the fix", () => {
    const perses = file('perses.yaml', 'provisioning:\n  folders:\n    - /etc/perses/provisioning\n  interval: 5m\n  enable_watch: true\n');
    expect(loadConfig({ file: perses }).config.provisioning).to.deep.equal({
      folders: ['/etc/perses/provisioning'],
      interval: '5m',
      enable_watch: true,
      git: [],
      git_timeout: '2m',
    });
    expect(loadConfig({}).config.provisioning).to.include({ interval: '1h', enable_watch: false });
    expect(configError(() => resolveConfig({ provisioning: { interval: '0s' } }))).to.contain(
      'provisioning.interval: "0s" would read without a pause',
    );
    expect(configError(() => resolveConfig({ provisioning: { git: [{ url: '/repo', interval: '0ms' }] } }))).to.contain(
      'provisioning.git[0].interval',
    );
    for (const url of ['https://user:pass@example.com/r.git', 'https://ghp_token@example.com/r.git', 'ssh://git:pw@example.com/r.git']) {
      const msg = configError(() => resolveConfig({ provisioning: { git: [{ url: 'https://example.com/ok.git' }, { url }] } }));
      expect(msg, url)
        .to.contain('provisioning.git[1].url: holds credentials')
        .and.contain('provisioning.git[1].password_file')
        .and.not.contain('[0]');
    }
    for (const url of [
      'https://example.com/r.git',
      'ssh://git@example.com/r.git',
      'git@example.com:team/r.git',
      'file:///srv/r.git',
      '/srv/r.git',
    ]) {
      expect(resolveConfig({ provisioning: { git: [{ url }] } }).provisioning.git[0].url).to.equal(url);
    }
    expect(configError(() => resolveConfig({ provisioning: { git: [{ url: '/r', ref: '--upload-pack=x' }] } }))).to.contain(
      'provisioning.git[0].ref',
    );
  });

  it('Perses keys with no effect here load and are each named in a warning with the reason; implemented ones are not', () => {
    const perses = file(
      'perses-ui.yaml',
      'frontend:\n  explorer:\n    enable: true\n  information: "# Hi"\n  banner:\n    severity: info\n    information: hi\nsearch:\n  excluded_chars: ["-"]\nschemas:\n  interval: 5m\nglobal_datasource_discovery: []\nwatch:\n  kinds: [Dashboard]\ndatasource:\n  http_proxy:\n    max_idle_conns: 10\n  global:\n    discovery: [{name: a}]\nplugin:\n  archive_paths: [a]\n  enabled: [Prometheus]\nsecurity:\n  authentication:\n    providers:\n      oidc:\n        - slug_id: corp\n          name: Corp\n          client_id: c\n          issuer: https://idp.example.com\n          logout:\n            enabled: true\n',
    );
    const { config, warnings } = loadConfig({ file: perses });
    expect(config.frontend.information, 'kept for GET /api/config').to.equal('# Hi');
    const named = warnings.filter((w) => w.includes(' is ignored: ')).map((w) => w.split(' ')[0]);
    expect(named).to.have.members([
      'security.authentication.providers.oidc[0].logout',
      'frontend.explorer',
      'frontend.information',
      'frontend.banner',
      'datasource.global.discovery',
      'datasource.http_proxy',
      'search',
      'schemas',
      'global_datasource_discovery',
      'plugin.archive_paths',
      'plugin.enabled',
      'watch.kinds',
    ]);
    expect(warnings.find((w) => w.startsWith('frontend.explorer'))).to.equal(
      "frontend.explorer is ignored: dashplane's UI always has its Explore page.",
    );
    expect(
      loadConfig({
        file: file(
          'perses-on.yaml',
          'frontend:\n  disable: true\ndatasource:\n  disable_local: true\nvariable:\n  global:\n    disable: true\n',
        ),
      }).warnings,
    ).to.deep.equal([]);
  });

  it("Perses' forms are read as dashplane's: a provider's claims as groups_claim and role_mappings, native.guest_permissions, the older cleanup interval, a trailing / of api_prefix", () => {
    const provider = { slug_id: 'kc', name: 'Keycloak', client_id: 'c', issuer: 'https://idp.example.com' };
    const claims = [
      {
        claim_name: 'roles',
        mappings: [
          { claim_value: 'admin', role_name: 'admin' },
          { claim_value: 'ops', role_name: 'editor', project: 'platform' },
        ],
      },
    ];
    const c = resolveConfig({
      api_prefix: '/perses/',
      ephemeral_dashboards_cleanup_interval: '2h',
      security: {
        authentication: { providers: { oidc: [{ ...provider, claims }] } },
        authorization: { provider: { native: { guest_permissions: [{ actions: ['read'], scopes: ['*'] }] } } },
      },
    } as never);
    expect(c.api_prefix).to.equal('/perses');
    expect(c.ephemeral_dashboard.cleanup_interval).to.equal('2h');
    expect(c.security.authorization.guest_permissions).to.deep.equal([{ actions: ['read'], scopes: ['*'] }]);
    const oidc = c.security.authentication.providers.oidc[0];
    expect(oidc.groups_claim).to.equal('roles');
    expect(oidc.role_mappings).to.deep.equal([
      { group: 'admin', global_role: 'admin' },
      { group: 'ops', project: 'platform', role: 'editor' },
    ]);
    const conflict = configError(() =>
      resolveConfig({ security: { authentication: { providers: { oidc: [{ ...provider, claims, groups_claim: 'groups' }] } } } } as never),
    );
    expect(conflict).to.contain('security.authentication.providers.oidc[0].claims[0].claim_name: "roles" while groups_claim is "groups"');
    const both = configError(() =>
      resolveConfig({ security: { authorization: { guest_permissions: [], provider: { native: { guest_permissions: [] } } } } } as never),
    );
    expect(both).to.contain(
      'security.authorization.provider.native.guest_permissions: security.authorization.guest_permissions is set too',
    );
  });

  it('Perses keys that would store, sign in or grant otherwise than written are refused, saying what to use instead', () => {
    expect(configError(() => resolveConfig({ database: { file: { folder: './local_db' } } } as never))).to.contain(
      'database.file: dashplane does not store resources in a folder of files; remove it and use database.level',
    );
    expect(configError(() => resolveConfig({ database: { sql: { db_name: 'perses' } } } as never))).to.contain(
      'database.sql: dashplane does not store resources in MySQL or MariaDB; remove it and use database.postgres',
    );
    expect(
      configError(() => resolveConfig({ security: { authentication: { providers: { kubernetes: { enable: true } } } } } as never)),
    ).to.contain('sign users in with an OIDC provider');
    expect(
      configError(() => resolveConfig({ security: { authorization: { provider: { kubernetes: { enable: true } } } } } as never)),
    ).to.contain('grant permissions with Roles and bindings');
    const lint = configError(() =>
      resolveConfig({
        dashboard: {
          custom_lint_rules: [
            { name: 'off', disable: true },
            { name: 'tags', target: '$.metadata', assertion: 'true', message: 'm' },
          ],
        },
      } as never),
    );
    expect(lint).to.contain('dashboard.custom_lint_rules[1] ("tags"): dashplane does not evaluate CEL lint rules').and.not.contain('[0]');
    expect(
      resolveConfig({
        security: { authentication: { providers: { kubernetes: { enable: false } } } },
        dashboard: { custom_lint_rules: [{ disable: true }] },
      } as never).security.enable_auth,
    ).to.equal(false);
  });

  it("Perses' environment variables set the same keys (list items by index); DASHPLANE_ ones win", () => {
    const { config, warnings } = loadConfig({
      env: {
        PERSES_SECURITY_ENABLE_AUTH: 'true',
        PERSES_PROVISIONING_FOLDERS_0: '/etc/perses/a',
        PERSES_PROVISIONING_FOLDERS_1: '/etc/perses/b',
        PERSES_HISTORY_MAX_VERSIONS: '3',
        DASHPLANE_HISTORY_MAX_VERSIONS: '7',
        PERSES_SERVICE_HOST: '10.0.0.1',
      },
    });
    expect(config.security.enable_auth).to.equal(true);
    expect(config.provisioning.folders).to.deep.equal(['/etc/perses/a', '/etc/perses/b']);
    expect(config.history.max_versions).to.equal(7);
    expect(warnings).to.deep.equal(['ignoring environment variable PERSES_SERVICE_HOST: it names no configuration key']);
  });

  it('a missing or malformed file is an error naming the file', () => {
    expect(configError(() => loadConfig({ file: join(dir.path, 'nope.yaml') }))).to.match(/nope\.yaml/);
    expect(configError(() => loadConfig({ file: file('d.yaml', 'listen: [unclosed\n') }))).to.match(/d\.yaml is not valid YAML/);
    expect(configError(() => loadConfig({ file: file('e.yaml', '- a\n- b\n') }))).to.match(/mapping/);
  });

  it('/api/config shows writeOnly values as "<secret>"', () => {
    const { config } = loadConfig({
      env: { DASHPLANE_SECURITY_ENCRYPTION_KEY: 'CANARY-KEY-123', DASHPLANE_DATABASE_POSTGRES_URL: 'postgres://u:CANARY@h/db' },
    });
    const shown = JSON.stringify(publicConfig(config));
    expect(shown).to.not.include('CANARY');
    expect((publicConfig(config) as { security: { encryption_key: string } }).security.encryption_key).to.equal('<secret>');
  });
});

describe('configuration: empty sections', () => {
  it('a section with every key commented out counts as absent', () => {
    const dir = tempDir();
    try {
      const f = join(dir.path, 'c.yaml');
      writeFileSync(f, 'plugin:\n  # schemas_dir: /x\nhistory:\n');
      expect(loadConfig({ file: f }).config.history?.max_versions).to.equal(50);
    } finally {
      dir.remove();
    }
  });
});
