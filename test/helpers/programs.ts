import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { PACKAGE_ROOT } from '../../src/paths.js';
import { skipFor } from './corpus.js';

/**
 * The programs from Debian packages that some suites run for real (CONTRIBUTING.md, "Tests",
 * lists them; `.ci/run` installs them). A suite that needs one calls `skipWithoutProgram` first:
 * without it the suite is skipped, `npm test` says so before the run starts (`missingProgramsNote`,
 * from test/global-fixtures.ts) and names the suites skipped at its end.
 */
export type ProgramId = 'prometheus' | 'node-exporter' | 'postgresql' | 'mariadb' | 'chromium' | 'zsh' | 'fish' | 'systemd-analyze';

interface Program {
  /** The Debian package that installs it. */
  debian: string;
  /** What the suites need it for (the notes say it). */
  for: string;
  /** The variable that points the tests at another binary. */
  env?: string;
  /** Where it is looked for: every file of one of these lists must be executable; the first such list wins. */
  candidates(): string[][];
}

const onPath = (name: string): string[][] =>
  (process.env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((d) => [join(d, name)]);

/** The catalogue: each program, its package, and where it is found. */
export const PROGRAMS: Record<ProgramId, Program> = {
  prometheus: {
    debian: 'prometheus',
    for: 'the datasource proxy and web UI suites query a real Prometheus',
    env: 'PROMETHEUS_BIN',
    candidates: () => [
      ...(process.env.PROMETHEUS_BIN ? [[process.env.PROMETHEUS_BIN]] : []),
      ...onPath('prometheus'),
      ['/usr/bin/prometheus'],
    ],
  },
  'node-exporter': {
    debian: 'prometheus-node-exporter',
    for: 'real node_* metrics for the dashboards of the web UI suites',
    env: 'NODE_EXPORTER_BIN',
    candidates: () => [[process.env.NODE_EXPORTER_BIN ?? '/usr/bin/prometheus-node-exporter']],
  },
  postgresql: {
    debian: 'postgresql-15',
    for: 'the PostgreSQL store, replicas and SQL proxy suites start a throwaway cluster (initdb, pg_ctl)',
    candidates: () => [['initdb', 'pg_ctl', 'pg_isready'].map((b) => join(POSTGRES_BIN, b))],
  },
  mariadb: {
    debian: 'mariadb-server',
    for: 'the MySQL and MariaDB SQL proxy suites start a throwaway mariadbd',
    env: 'MARIADBD_BIN',
    candidates: () => {
      const server = process.env.MARIADBD_BIN ?? '/usr/sbin/mariadbd';
      return [[server, join(process.env.MARIADBD_BIN ? join(server, '..', '..', 'bin') : '/usr/bin', 'mariadb-install-db')]];
    },
  },
  chromium: {
    debian: 'chromium',
    for: 'the web UI suites drive Chromium with playwright-core (no browser is downloaded)',
    env: 'CHROMIUM_BIN',
    candidates: () => [
      ...(process.env.CHROMIUM_BIN ? [[process.env.CHROMIUM_BIN]] : []),
      ['/usr/bin/chromium'],
      ['/usr/bin/chromium-browser'],
    ],
  },
  zsh: { debian: 'zsh', for: "dashctl's zsh completion script runs in zsh", candidates: () => onPath('zsh') },
  fish: { debian: 'fish', for: "dashctl's fish completion script runs in fish", candidates: () => onPath('fish') },
  'systemd-analyze': {
    debian: 'systemd',
    for: 'systemd-analyze verify checks deploy/systemd/dashplane.service',
    candidates: () => [['/usr/bin/systemd-analyze'], ['/bin/systemd-analyze']],
  },
};

/** Debian's PostgreSQL 15 server binaries. */
export const POSTGRES_BIN = '/usr/lib/postgresql/15/bin';

const executable = (file: string): boolean => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * Programs to take as missing although installed (comma-separated ids): to run the suite as a
 * machine without them would (a packager's, a contributor's). Not a DASHPLANE_* variable: the
 * servers the tests start would warn about an unknown key.
 */
export const WITHOUT_ENV = 'MOCHA_DASHPLANE_WITHOUT';

/** The program's binary (the first of its files), or undefined when it is not installed (or listed in WITHOUT_ENV). */
export function programPath(id: ProgramId): string | undefined {
  if ((process.env[WITHOUT_ENV] ?? '').split(',').includes(id)) return undefined;
  return PROGRAMS[id].candidates().find((files) => files.every(executable))?.[0];
}

/** How to get a program, for messages. */
export function howToGet(id: ProgramId): string {
  const p = PROGRAMS[id];
  return `apt-get install ${p.debian} (.ci/run installs it)${p.env ? `, or set ${p.env}` : ''}`;
}

/** The binary, or an error saying which package installs it (for helpers that start the program). */
export function requireProgram(id: ProgramId): string {
  const path = programPath(id);
  if (!path) throw new Error(`${id} is not installed: ${PROGRAMS[id].for}; ${howToGet(id)}`);
  return path;
}

/**
 * In a `before` hook or a test (`function () { ... }`, not an arrow): skips it (a hook: its whole
 * suite) when one of `ids` is missing, remembering it for the end-of-run note.
 */
export function skipWithoutProgram(ctx: Mocha.Context, ...ids: ProgramId[]): void {
  const missing = ids.filter((id) => !programPath(id));
  if (missing.length)
    skipFor(
      ctx,
      missing.map((id) => `${id}, Debian package ${PROGRAMS[id].debian}`).join('; '),
      `Missing programs: ${missing.map(howToGet).join('; ')}.`,
    );
}

/**
 * In a `describe`, before its hooks: a `before` hook skipping the suite (with a note at the end of
 * the run) when one of `ids` is missing.
 */
export function needsPrograms(...ids: ProgramId[]): void {
  before(function () {
    skipWithoutProgram(this, ...ids);
  });
}

/**
 * The note printed before the run: each missing program, its package, and the test files that
 * will skip suites for want of it (found by their needsPrograms and skipWithoutProgram calls in the built files
 * under `roots`, relative to the package); empty when nothing is missing.
 */
export function missingProgramsNote(roots: readonly string[]): string {
  const missing = (Object.keys(PROGRAMS) as ProgramId[]).filter((id) => !programPath(id));
  if (!missing.length) return '';
  const users = suitesNeeding(roots);
  const lines = missing.map((id) => {
    const files = [...(users.get(id) ?? [])].sort();
    return `  - ${id} (Debian package ${PROGRAMS[id].debian}: ${PROGRAMS[id].for}): skipped in ${files.length ? files.join(', ') : 'no suite'}`;
  });
  return [
    'Programs the tests run are missing; the suites that need them will be skipped:',
    ...lines,
    `Install them: apt-get install ${missing.map((id) => PROGRAMS[id].debian).join(' ')} (CONTRIBUTING.md, "Tests").`,
  ].join('\n');
}

/** Program id -> the test files (`test/ui.test.ts`) calling needsPrograms or skipWithoutProgram for it. */
function suitesNeeding(roots: readonly string[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const root of roots) {
    let files: string[];
    try {
      files = readdirSync(join(PACKAGE_ROOT, root), { recursive: true }).map(String);
    } catch {
      continue;
    }
    for (const f of files.filter((x) => x.endsWith('.test.js'))) {
      const text = readFileSync(join(PACKAGE_ROOT, root, f), 'utf8');
      for (const call of text.matchAll(/(?:needsPrograms\(|skipWithoutProgram\(this,)([^)]*)\)/g)) {
        for (const id of call[1].matchAll(/'([\w-]+)'/g)) {
          if (!out.has(id[1])) out.set(id[1], new Set());
          out.get(id[1])!.add(
            join(root, f)
              .replace(/^dist\//, '')
              .replace(/\.js$/, '.ts'),
          );
        }
      }
    }
  }
  return out;
}
