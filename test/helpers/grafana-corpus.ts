import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS_ENV, corpusDir } from './corpus.js';

/**
 * The Grafana migration corpus (`corpus-grafana` under $DASHPLANE_CORPUS, else next to the
 * checkout: see corpus.ts): real Grafana dashboards and Perses' own migration test cases. Suites
 * that use it skip when it is absent.
 */
export const GRAFANA_CORPUS = corpusDir('corpus-grafana') ?? join(process.cwd(), '..', 'shared', 'corpus-grafana');

/** The one message a suite prints when it skips for lack of the corpus. */
export const NO_CORPUS = `skipped: the Grafana migration corpus is not at ${GRAFANA_CORPUS} (set ${CORPUS_ENV} to a directory holding corpus-grafana/)`;

export const hasGrafanaCorpus = (): boolean =>
  existsSync(join(GRAFANA_CORPUS, 'dashboards')) && existsSync(join(GRAFANA_CORPUS, 'perses-tests'));

/** One real Grafana dashboard of the corpus. */
export interface CorpusDashboard {
  file: string;
  json: any;
}

/** The dev dashboards (`dashboards/*.json`), sorted by file name. */
export function corpusDashboards(): CorpusDashboard[] {
  const dir = join(GRAFANA_CORPUS, 'dashboards');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, json: JSON.parse(readFileSync(join(dir, file), 'utf8')) }));
}

/** One Perses migration test case: a Grafana dashboard, panel, query or variable, and what Perses makes of it. */
export interface PersesCase {
  name: string;
  input: any;
  expected: any;
}

/** Every `perses-tests/<case>/{input,expected}.json`, sorted by case name (the `perses__<repo>__` prefix removed). */
export function persesCases(): PersesCase[] {
  const dir = join(GRAFANA_CORPUS, 'perses-tests');
  return readdirSync(dir)
    .filter((d) => existsSync(join(dir, d, 'expected.json')))
    .sort()
    .map((d) => ({
      name: d.replace(/^perses__(perses|plugins)__/, ''),
      input: JSON.parse(readFileSync(join(dir, d, 'input.json'), 'utf8')),
      expected: JSON.parse(readFileSync(join(dir, d, 'expected.json'), 'utf8')),
    }));
}

/** Grafana panels of a dashboard in order (rows' panels, legacy `rows[]`), without row panels and repeat copies. */
export function grafanaPanels(dashboard: any): any[] {
  const d = dashboard.dashboard && !dashboard.panels && !dashboard.rows ? dashboard.dashboard : dashboard;
  const out: any[] = [];
  const walk = (panels: any[] | undefined) => {
    for (const p of panels ?? []) {
      if (p?.type === 'row') walk(p.panels);
      else if (p && p.repeatPanelId == null) out.push(p);
    }
  };
  walk(d.panels);
  for (const row of d.panels?.length ? [] : (d.rows ?? [])) if (row.repeatIteration == null) walk(row.panels);
  return out;
}

/** Objects with their keys sorted, so that key order does not matter when comparing. */
export function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  return v;
}
