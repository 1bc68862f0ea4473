// npm test's mocha configuration: three worker processes, and the test files in the order the
// workers take them (see CONTRIBUTING.md, "Tests").
//
// In parallel mode each file goes, in list order, to the next free worker. Alphabetical order put
// every Chromium suite (test/ui*.test.js) at the end, three browsers drawing dashboards at once on
// two cores: pages took 5-10 times longer and the run's tail was all browsers. Here the files go
// longest first (so no long file starts last), with the browser suites spread through the run in
// proportion to their share of the time.
const { readdirSync } = require('node:fs');
const { join } = require('node:path');

const ROOTS = ['dist/src', 'dist/sdk', 'dist/cli', 'dist/test'];

// Seconds each file took in a run of the whole suite (2-core AMD EPYC VM, 2026-11-28, both cores
// busy, partly with another test run; each file's time from its first hook to its last, as a root
// hook plugin in each worker measured it): those of 5 s or more, longest first. Files not listed
// count as DEFAULT_SECONDS. A stale figure only changes the order, never what runs.
const SECONDS = {
  'dist/test/ui-a11y.test.js': 78,
  'dist/test/reliability.test.js': 54,
  'dist/test/cost-bounds.test.js': 44,
  'dist/test/ui-minimal-save.test.js': 43,
  'dist/test/ui.test.js': 38,
  'dist/test/watch-limits.test.js': 35,
  'dist/test/ui-import.test.js': 31,
  'dist/test/ui-plugins.test.js': 24,
  'dist/test/ui-manage.test.js': 24,
  'dist/test/replicas-processes.test.js': 23,
  'dist/test/secrets.test.js': 22,
  'dist/test/ui-session-drafts.test.js': 19,
  'dist/src/storage/postgres-store.test.js': 18,
  'dist/test/ui-explore-start.test.js': 18,
  'dist/test/provisioning.test.js': 18,
  'dist/test/ui-home.test.js': 18,
  'dist/test/ui-theme.test.js': 16,
  'dist/test/ui-playlists.test.js': 16,
  'dist/test/login-hardening.test.js': 16,
  'dist/test/proxy-security.test.js': 15,
  'dist/test/ui-small-fixes.test.js': 14,
  'dist/test/perses-e2e-config.test.js': 14,
  'dist/test/ui-admin.test.js': 12,
  'dist/test/data-directory.test.js': 12,
  'dist/test/provisioning-git.test.js': 12,
  'dist/test/dashctl-install.test.js': 12,
  'dist/test/ui-load.test.js': 12,
  'dist/test/backup.test.js': 11,
  'dist/test/malformed-shapes.test.js': 11,
  'dist/test/server-process.test.js': 11,
  'dist/test/ui-explore.test.js': 11,
  'dist/test/dac-roundtrip.test.js': 11,
  'dist/test/migrate-store.test.js': 10,
  'dist/src/storage/level-store.test.js': 10,
  'dist/test/audit-volume.test.js': 10,
  'dist/test/ui-datasource.test.js': 10,
  'dist/test/dashctl.test.js': 10,
  'dist/test/proxy-prometheus.test.js': 9,
  'dist/test/dashctl-completion.test.js': 9,
  'dist/test/ui-managed.test.js': 8,
  'dist/test/api-tokens.test.js': 7,
  'dist/test/sign-up.test.js': 7,
  'dist/test/openapi.test.js': 7,
  'dist/test/proxy-defaults.test.js': 7,
  'dist/test/watch.test.js': 7,
  'dist/test/ui-history.test.js': 7,
  'dist/test/kind-contract.test.js': 7,
  'dist/test/corpus.test.js': 6,
  'dist/test/proxy-cache-mixed.test.js': 6,
  'dist/test/sql-proxy-mariadb.test.js': 6,
  'dist/test/perses-e2e-resources.test.js': 6,
  'dist/test/recreated-project.test.js': 6,
  'dist/test/gitops-loop.test.js': 6,
  'dist/test/sql-proxy.test.js': 6,
  'dist/test/proxy-concurrency.test.js': 6,
  'dist/test/dashctl-oidc.test.js': 6,
  'dist/test/security-input.test.js': 5,
  'dist/test/replicas.test.js': 5,
  'dist/test/sql-proxy-mariadb-options.test.js': 5,
  'dist/test/audit-log.test.js': 5,
  'dist/test/log-output.test.js': 5,
};
const DEFAULT_SECONDS = 2;

/** Every *.test.js under `dir`, recursively, sorted. */
function testFiles(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { recursive: true });
  } catch {
    return [];
  }
  return entries
    .map(String)
    .filter((f) => f.endsWith('.test.js'))
    .map((f) => join(dir, f).split('\\').join('/'))
    .sort();
}

const seconds = (f) => SECONDS[f] ?? DEFAULT_SECONDS;
const isBrowserSuite = (f) => /^dist\/test\/ui(-[\w-]+)?\.test\.js$/.test(f);
const longestFirst = (a, b) => seconds(b) - seconds(a) || (a < b ? -1 : 1);

function ordered() {
  const all = ROOTS.flatMap(testFiles);
  const browser = all.filter(isBrowserSuite).sort(longestFirst);
  const other = all.filter((f) => !isBrowserSuite(f)).sort(longestFirst);
  const sum = (xs) => xs.reduce((n, f) => n + seconds(f), 0);
  const share = sum(browser) / Math.max(1, sum(other));
  const out = [];
  let browserSeconds = 0;
  let otherSeconds = 0;
  while (browser.length || other.length) {
    const takeBrowser = browser.length && (!other.length || browserSeconds <= otherSeconds * share);
    const f = takeBrowser ? browser.shift() : other.shift();
    if (takeBrowser) browserSeconds += seconds(f);
    else otherSeconds += seconds(f);
    out.push(f);
  }
  return out;
}

module.exports = {
  spec: ordered(),
  timeout: 30000,
  slow: 2000,
  reporter: 'spec',
  exit: true,
  require: ['dist/test/global-fixtures.js'],
  parallel: true,
  jobs: 3,
};
