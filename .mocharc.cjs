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

// Seconds each slow file took in a run of the whole suite (2-core AMD EPYC VM, 2026-11-26; the
// dashctl files scaled on 2026-11-28 by their time alone before and after dashctl ran in process).
// Files not listed count as DEFAULT_SECONDS. A stale figure only changes the order, never what runs.
const SECONDS = {
  'dist/test/ui.test.js': 150,
  'dist/test/dashctl.test.js': 41,
  'dist/test/ui-import.test.js': 120,
  'dist/test/reliability.test.js': 105,
  'dist/test/ui-theme.test.js': 100,
  'dist/test/ui-explore.test.js': 80,
  'dist/test/ui-minimal-save.test.js': 90, // measured alone, 2026-11-28, as the two below
  'dist/test/ui-explore-start.test.js': 50,
  'dist/test/ui-session-drafts.test.js': 40,
  'dist/test/dashctl-completion.test.js': 35,
  'dist/test/malformed-shapes.test.js': 57,
  'dist/test/ui-manage.test.js': 55,
  'dist/test/dashctl-habits.test.js': 9,
  'dist/test/dashctl-bin.test.js': 29,
  'dist/test/ui-load.test.js': 48,
  'dist/test/cost-bounds.test.js': 45,
  'dist/test/server-process.test.js': 45,
  'dist/test/watch-limits.test.js': 45,
  'dist/test/dashctl-contexts.test.js': 8,
  'dist/test/secrets.test.js': 41,
  'dist/test/ui-home.test.js': 40,
  'dist/test/gitops-loop.test.js': 8,
  'dist/test/backup.test.js': 35,
  'dist/test/login-hardening.test.js': 32,
  'dist/test/dashctl-gitops.test.js': 14,
  'dist/test/provisioning.test.js': 22,
  'dist/test/provisioning-replicas.test.js': 20,
  'dist/test/ui-admin.test.js': 28,
  'dist/test/ui-datasource.test.js': 26,
  'dist/test/ui-plugins.test.js': 25,
  'dist/test/replicas-processes.test.js': 25,
  'dist/src/storage/postgres-store.test.js': 25,
  // measured alone, 2026-11-28, on a busy machine
  'dist/test/ui-small-fixes.test.js': 30,
  'dist/test/ui-playlists.test.js': 28,
  'dist/test/ui-share.test.js': 17,
  'dist/test/ui-a11y.test.js': 120,
  // measured alone, 2026-11-28 (each starts its own MariaDB)
  'dist/test/sql-proxy-mariadb-options.test.js': 16,
  'dist/test/sql-proxy-mariadb.test.js': 10,
};
const DEFAULT_SECONDS = 3;

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
