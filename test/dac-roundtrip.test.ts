import { expect } from 'chai';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonical } from '../src/lib/canonical.js';
import { moduleCode, withoutServerOwned } from '../cli/codegen/module.js';
import { loadManifests } from '../cli/manifests.js';
import { buildFile } from '../cli/ts-build.js';
import type { Obj } from '../src/lib/is-obj.js';
import { migrateGrafanaDashboard } from '../src/migrate/dashboard.js';
import { skipWithoutCorpus } from './helpers/corpus.js';
import { startTestServer, tempDir, type TestServer } from './helpers/server.js';
import { sdkProject, typeErrors } from './helpers/typecheck.js';

/** One dashboard of a corpus, and the name of the code generated for it. */
interface Case {
  source: string;
  input: Obj;
  file: string;
}

/**
 * Dashboards the round trip cannot pass for a reason outside the SDK (each input is refused by the
 * server as well): source -> reason. Nothing else may fail.
 */
const NOT_BUILT: Record<string, string> = {
  'perses/internal/api/plugin/migrate/testdata/non-reg/cue-marshal/dashboards/simple-perses.json#0':
    'metadata.name is empty: the server refuses it (names are 1 to 75 characters) and dashboard() does too',
};
const NOT_TYPED: Record<string, string> = {
  'perses/internal/api/plugin/migrate/testdata/dashboards/basic_perses_dashboard.json#0':
    'a BarChart spec with the unknown field "nested" (a Perses migration fixture; the server refuses it too)',
  'perses/internal/api/plugin/migrate/testdata/dashboards/panel_with_links_perses_dashboard.json#0':
    'a BarChart spec with the unknown field "nested" (a Perses migration fixture; the server refuses it too)',
};
const GRAFANA_NOT_MIGRATED: Record<string, string> = {
  'grafana12-v2-schema.json':
    'a Grafana 12 v2-schema dashboard, which the migration refuses with a message (export the classic JSON model)',
};

/**
 * Every dashboard of the corpora, as `dashctl generate` writes it and `dashctl build` runs it:
 * generate then build gives back the input (server-owned metadata aside, key order aside), the
 * generated code type-checks under `tsc --strict` against the published declarations, and the
 * server judges the built dashboard as it judges the input.
 */
async function roundTrip(
  cases: Case[],
  dir: string,
  srv: TestServer,
  exceptions: { built: Record<string, string>; typed: Record<string, string> },
): Promise<void> {
  sdkProject(dir);
  for (const c of cases) writeFileSync(join(dir, c.file), moduleCode([c.input]));
  const failed: string[] = [];
  let equal = 0;
  for (const c of cases) {
    let built: Obj | undefined;
    try {
      built = (await buildFile(join(dir, c.file), true, { cwd: dir, generation: 0 }))!.resources[0];
    } catch (e) {
      if (!exceptions.built[c.source]) failed.push(`${c.source}: ${(e as Error).message}`);
      continue;
    }
    const want = withoutServerOwned(c.input);
    if (JSON.stringify(canonical(built)) !== JSON.stringify(canonical(want))) {
      failed.push(`${c.source} (${c.file}): built differs from the input`);
      continue;
    }
    equal++;
    const verdict = async (d: Obj) =>
      (await srv.api('POST', '/api/validate/dashboards', { ...d, metadata: { project: 'corpus', ...(d.metadata as Obj) } })).status;
    const [a, b] = [await verdict(want), await verdict(built)];
    if (a !== b) failed.push(`${c.source}: the server answers ${a} for the input and ${b} for the built dashboard`);
  }
  expect(failed, failed.join('\n')).to.deep.equal([]);
  expect(equal).to.equal(cases.length - Object.keys(exceptions.built).length);
  const errors = typeErrors(dir);
  const untyped = cases.filter((c) => errors.has(c.file) && !exceptions.typed[c.source] && !exceptions.built[c.source]);
  expect(untyped.map((c) => `${c.source}: ${errors.get(c.file)!.join('\n')}`)).to.deep.equal([]);
  const typedExceptions = cases.filter((c) => exceptions.typed[c.source]);
  expect(
    typedExceptions.map((c) => errors.has(c.file)),
    'each listed exception still fails to type-check',
  ).to.deep.equal(typedExceptions.map(() => true));
  console.log(`      ${cases.length} dashboards: ${equal} built equal to the input, ${cases.length - errors.size} type-check`);
}

describe('dashctl generate then build gives back every dashboard of the corpora', function () {
  this.timeout(300_000);
  let tmp: ReturnType<typeof tempDir>;
  let srv: TestServer;
  before(async () => {
    tmp = tempDir('dac-roundtrip-');
    srv = await startTestServer();
  });
  after(async () => {
    await srv?.stop();
    tmp?.remove();
  });

  it('the Perses corpus: every Dashboard (native and perses-operator resources)', async function () {
    const corpus = skipWithoutCorpus(this, 'corpus');
    const index = JSON.parse(readFileSync(join(corpus, 'INDEX.json'), 'utf8')) as { resources: { kind: string; file: string }[] };
    const files = [...new Set(index.resources.filter((r) => r.kind === 'Dashboard').map((r) => r.file))];
    const cases: Case[] = [];
    for (const f of files) {
      const { manifests } = await loadManifests([join(corpus, f)], { cwd: corpus, stdin: async () => '' });
      for (const m of manifests.filter((x) => x.object.kind === 'Dashboard'))
        cases.push({ source: `${f}#${m.index}`, input: m.object, file: `perses_${cases.length}.ts` });
    }
    expect(cases.length).to.be.greaterThan(100);
    await roundTrip(cases, join(tmp.path, 'perses'), srv, { built: NOT_BUILT, typed: NOT_TYPED });
  });

  it('the Grafana dashboards of the corpus and of test/data, migrated first', async function () {
    const corpus = skipWithoutCorpus(this, 'corpus-grafana');
    const cases: Case[] = [];
    for (const dir of [join(corpus, 'dashboards'), join(process.cwd(), 'test', 'data', 'grafana')]) {
      for (const f of readdirSync(dir).filter((x) => x.endsWith('.json'))) {
        const json = JSON.parse(readFileSync(join(dir, f), 'utf8'));
        if (GRAFANA_NOT_MIGRATED[f]) {
          expect(() => migrateGrafanaDashboard(json), f).to.throw(/v2 schema/);
          continue;
        }
        cases.push({ source: f, input: migrateGrafanaDashboard(json).dashboard as Obj, file: `grafana_${cases.length}.ts` });
      }
    }
    expect(cases.length).to.be.greaterThan(80);
    await roundTrip(cases, join(tmp.path, 'grafana'), srv, { built: {}, typed: {} });
  });
});
