import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { PACKAGE_ROOT } from '../src/paths.js';
import { dashctl, show, type Run } from './helpers/dashctl.js';
import { startTestServer, tempDir, type TestServer } from './helpers/server.js';
import { sdkProject, typeErrors } from './helpers/typecheck.js';

const EXAMPLE = join(PACKAGE_ROOT, 'examples', 'dac');

/**
 * examples/dac (the README's dashboards as code): it type-checks under `tsc --strict`, builds,
 * passes the server's validation, and applies to a real server; and the compiler refuses a
 * plugin spec the server would refuse.
 */
describe('examples/dac: a service overview as code, built, type-checked, validated and applied', function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof tempDir>;
  let srv: TestServer;
  const run = (args: string[]): Promise<Run> => dashctl(join(tmp.path, 'config.json'), args, { env: { DASHCTL_URL: srv.url } });

  before(async () => {
    tmp = tempDir('dac-example-');
    srv = await startTestServer();
  });
  after(async () => {
    await srv?.stop();
    tmp?.remove();
  });

  it('type-checks under tsc --strict with its own tsconfig.json (dashplane/sdk: the package itself, by its name)', () => {
    expect([...typeErrors(EXAMPLE).values()].flat()).to.deep.equal([]);
  });

  it('the compiler refuses what the server would: an unknown field, a wrong enum value, a missing required field', () => {
    const dir = join(tmp.path, 'refused');
    sdkProject(dir);
    writeFileSync(
      join(dir, 'fine.ts'),
      `import { statChart } from 'dashplane/sdk';\nexport const ok = statChart({ calculation: 'last' });\n`,
    );
    writeFileSync(
      join(dir, 'unknown.ts'),
      `import { timeSeriesChart } from 'dashplane/sdk';\nexport const p = timeSeriesChart({ bogus: 1 });\n`,
    );
    writeFileSync(
      join(dir, 'enum.ts'),
      `import { statChart } from 'dashplane/sdk';\nexport const p = statChart({ calculation: 'loudest' });\n`,
    );
    writeFileSync(
      join(dir, 'missing.ts'),
      `import { prometheusTimeSeriesQuery } from 'dashplane/sdk';\nexport const q = prometheusTimeSeriesQuery({ datasource: 'prom' });\n`,
    );
    const errors = typeErrors(dir);
    expect([...errors.keys()].sort()).to.deep.equal(['enum.ts', 'missing.ts', 'unknown.ts']);
  });

  it('builds, passes the server validation (build --check --online), applies, and applies again unchanged', async () => {
    const built = await run(['build', '-f', EXAMPLE]);
    expect(built.code, show(built)).to.equal(0);
    const docs = built.stdout.split(/^---$/m).map((t) => parse(t));
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`)).to.deep.equal([
      'Project/shop',
      'Datasource/prometheus',
      'Dashboard/checkout-overview',
      'Dashboard/catalog-overview',
    ]);
    const checked = await run(['build', '-f', EXAMPLE, '--check', '--online']);
    expect(checked.code, show(checked)).to.equal(0);
    expect(checked.stdout).to.include('4 resource(s) checked by the server, 0 invalid');
    const applied = await run(['apply', '-f', EXAMPLE]);
    expect(applied.code, show(applied)).to.equal(0);
    expect(applied.stdout).to.include('created 4, configured 0, unchanged 0');
    const live = await srv.api('GET', '/api/v1/projects/shop/dashboards/checkout-overview');
    expect(live.status).to.equal(200);
    expect(live.body.spec.layouts.map((l: any) => l.spec.items.length)).to.deep.equal([1, 3, 1]);
    const again = await run(['apply', '-f', EXAMPLE]);
    expect(again.stdout, show(again)).to.include('created 0, configured 0, unchanged 4');
  });
});
