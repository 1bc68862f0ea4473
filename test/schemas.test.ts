/**
 * GET /api/v1/schemas/{plural} and /api/v1/schemas/plugins/{kind}: the schemas the server
 * validates with, self-contained, for clients such as the UI's editor.
 */
import { expect } from 'chai';
import { Ajv } from 'ajv';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startAuthServer } from './helpers/auth.js';
import { readResources } from './helpers/manifests.js';
import type { TestServer } from './helpers/server.js';

describe('JSON Schemas for clients (GET /api/v1/schemas/...)', () => {
  let s: TestServer;
  before(async () => {
    s = await startAuthServer();
  });
  after(async () => s?.stop());

  const plurals = [
    'projects',
    'dashboards',
    'ephemeraldashboards',
    'folders',
    'variables',
    'datasources',
    'secrets',
    'roles',
    'rolebindings',
    'globalvariables',
    'globaldatasources',
    'globalsecrets',
    'globalroles',
    'globalrolebindings',
    'users',
  ];

  it("serves every kind's schema without credentials, self-contained: it compiles alone", async () => {
    for (const plural of plurals) {
      const r = await s.api('GET', `/api/v1/schemas/${plural}`);
      expect(r.status, plural).to.equal(200);
      expect(JSON.stringify(r.body), plural).to.not.match(/"\$ref":"(?!#)/); // every $ref is local
      new Ajv({ strict: false }).compile(r.body);
    }
    expect((await s.api('GET', '/api/v1/schemas/GlobalRoles')).status).to.equal(200); // plurals match case-insensitively
  });

  it('accepts what the server accepts: every example manifest, and refuses a broken one', async () => {
    const schemas = new Map<string, ReturnType<Ajv['compile']>>();
    for (const plural of plurals)
      schemas.set(plural, new Ajv({ strict: false, allErrors: true }).compile((await s.api('GET', `/api/v1/schemas/${plural}`)).body));
    const dir = join(process.cwd(), 'examples', 'manifests');
    let checked = 0;
    for (const f of readdirSync(dir)) {
      for (const obj of readResources(join(dir, f))) {
        const plural = plurals.find((p) => p === `${String(obj.kind).toLowerCase()}s`);
        if (!plural) continue;
        const full = {
          ...obj,
          metadata: { createdAt: '2024-01-01T00:00:00Z', updatedAt: '2024-01-01T00:00:00Z', version: 0, ...obj.metadata },
        };
        const validate = schemas.get(plural)!;
        expect(validate(full), `${f}: ${JSON.stringify(validate.errors)}`).to.equal(true);
        checked++;
      }
    }
    expect(checked).to.be.greaterThan(5);
    const dashboard = schemas.get('dashboards')!;
    expect(
      dashboard({
        kind: 'Dashboard',
        metadata: { name: 'x', project: 'p', createdAt: 'a', updatedAt: 'b', version: 0 },
        spec: { duration: 'soon', panels: {}, layouts: [] },
      }),
    ).to.equal(false);
  });

  it('serves plugin spec schemas; unknown kinds and plurals are 404s', async () => {
    const prom = await s.api('GET', '/api/v1/schemas/plugins/PrometheusDatasource');
    expect(prom.status).to.equal(200);
    expect(Object.keys(prom.body.properties)).to.include.members(['directUrl', 'proxy']);
    const validate = new Ajv({ strict: false }).compile(prom.body);
    expect(validate({ proxy: { kind: 'HTTPProxy', spec: { url: 'http://p:9090' } } })).to.equal(true);
    expect(validate({ proxy: { kind: 'HTTPProxy', spec: {} } })).to.equal(false);
    expect((await s.api('GET', '/api/v1/schemas/plugins/NoSuchPlugin')).status).to.equal(404);
    expect((await s.api('GET', '/api/v1/schemas/nothings')).status).to.equal(404);
  });
});
