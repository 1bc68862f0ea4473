/**
 * INPUT-04/05 against the real binary: bodies nested far beyond `http.max_json_depth`, in every
 * shape a parser nests, sent by an anonymous caller to the routes that take a body without
 * authentication (sign-up and validation). A recursive parser fed such a body may exhaust the
 * stack, and V8 can then abort the whole process instead of throwing; so the server runs in its
 * own process, the bombs go in parallel and repeatedly, and the process must answer 400 to each
 * and keep serving.
 */
import { expect } from 'chai';
import { AUTH_ENV } from './helpers/auth.js';
import { spawnServer, stopChild, type ServerProcess } from './helpers/process.js';
import { readResponse, tempDir } from './helpers/server.js';

const N = 100_000;

/** Each bomb: a label, its content type, its text. */
const BOMBS: [string, string, string][] = [
  ['YAML flow sequences', 'application/yaml', `a: ${'['.repeat(N)}${']'.repeat(N)}`],
  ['YAML flow mappings', 'application/yaml', `a: ${'{a: '.repeat(N)}${'}'.repeat(N)}`],
  ['YAML flow pairs in sequences', 'text/yaml', `a: ${'[a: '.repeat(N)}${']'.repeat(N)}`],
  ['YAML unclosed brackets', 'application/x-yaml', `a: ${'[{'.repeat(N)}`],
  ['YAML compact block sequences', 'application/yaml', `${'- '.repeat(N)}x`],
  ['YAML explicit keys', 'application/yaml', `${'? '.repeat(N)}x`],
  ['YAML an indentation ladder', 'application/yaml', Array.from({ length: 2500 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')],
  ['YAML stray colons nesting by error recovery', 'application/yaml', 'k: : >\n'.repeat(N / 2)],
  ['YAML chained flow keys', 'application/yaml', `{${'a: '.repeat(N)}b}`],
  ['JSON arrays', 'application/json', `{"a":${'['.repeat(N)}${']'.repeat(N)}}`],
  ['JSON objects (+json type)', 'application/merge-patch+json', `${'{"a":'.repeat(N)}1${'}'.repeat(N)}`],
];

const ROUTES = ['/api/v1/users', '/api/validate/dashboards', '/api/v1/projects'];

describe('INPUT-04 nesting bombs against the server process (auth on, anonymous caller)', function () {
  this.timeout(120_000);
  let dir: ReturnType<typeof tempDir>;
  let srv: ServerProcess;

  before(async () => {
    dir = tempDir();
    srv = await spawnServer({ dataDir: dir.path, env: AUTH_ENV });
  });
  after(async () => {
    if (srv) await stopChild(srv.child);
    dir?.remove();
  });

  const post = async (path: string, type: string, body: string) =>
    readResponse(await fetch(`${srv.url}${path}`, { method: 'POST', headers: { 'content-type': type }, body }));

  for (const [label, type, text] of BOMBS) {
    it(`${label} (${Math.round(text.length / 1024)} KB): 400 on every route, five at a time, twice; the process lives`, async () => {
      for (let round = 0; round < 2; round++) {
        const answers = await Promise.all(
          ROUTES.flatMap((route) =>
            Array.from({ length: 5 }, () => post(route, type, text).catch((e: Error) => ({ status: 0, text: e.message, body: undefined }))),
          ),
        );
        for (const r of answers) {
          expect(r.status, `${r.text.slice(0, 200)}\n${srv.output().slice(-2000)}`).to.be.oneOf([400, 401]);
          if (r.status === 400) expect(r.text).to.match(/nested more than 100 levels deep|not valid (YAML|JSON)/);
        }
      }
      expect(srv.child.exitCode, srv.output().slice(-2000)).to.equal(null);
      const health = await fetch(`${srv.url}/api/v1/health`);
      expect(health.status).to.equal(200);
    });
  }

  it('control: a sign-up in YAML nested as deep as a real object is accepted', async () => {
    const r = await post(
      '/api/v1/users',
      'application/yaml',
      'kind: User\nmetadata:\n  name: nested-ok\nspec:\n  nativeProvider:\n    password: nested-ok-password\n',
    );
    expect(r.status, r.text).to.equal(200);
  });

  it('the limit is exact: a body nested 100 levels deep passes the nesting check, 101 levels do not', async () => {
    // levels: the object, spec, then n - 2 arrays
    const deep = (n: number) => `kind: Project\nmetadata:\n  name: d${n}\nspec:\n  display: ${'['.repeat(n - 2)}${']'.repeat(n - 2)}\n`;
    const at = await post('/api/validate/dashboards', 'application/yaml', deep(100));
    expect(at.text).not.to.match(/nested more than/);
    const over = await post('/api/validate/dashboards', 'application/yaml', deep(101));
    expect(over.status).to.equal(400);
    expect(over.text).to.match(/nested more than 100 levels deep/);
  });
});
