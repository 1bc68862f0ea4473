import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';
import { PROGRAMS, WITHOUT_ENV, missingProgramsNote, programPath } from './helpers/programs.js';

/** The note npm test prints before it starts (test/global-fixtures.ts) when programs of Debian packages are missing. */
describe('the test suite without the programs of its Debian packages', () => {
  const saved = process.env[WITHOUT_ENV];
  afterEach(() => {
    if (saved === undefined) delete process.env[WITHOUT_ENV];
    else process.env[WITHOUT_ENV] = saved;
  });

  it('names each missing program, its package, and the test files whose suites it skips', () => {
    process.env[WITHOUT_ENV] = 'zsh,chromium,postgresql';
    expect(programPath('zsh')).to.equal(undefined);
    const note = missingProgramsNote(['dist/src', 'dist/test']);
    const lines = note.split('\n');
    expect(lines[0]).to.equal('Programs the tests run are missing; the suites that need them will be skipped:');
    const line = (id: string) => lines.find((l) => l.startsWith(`  - ${id} `)) ?? '';
    expect(line('zsh')).to.equal(`  - zsh (Debian package zsh: ${PROGRAMS.zsh.for}): skipped in test/dashctl-completion.test.ts`);
    expect(line('chromium'))
      .to.include('(Debian package chromium: ')
      .and.include('test/ui.test.ts')
      .and.include('test/openapi.test.ts')
      .and.include('test/ui-managed.test.ts');
    expect(line('postgresql'))
      .to.include('(Debian package postgresql-15: ')
      .and.include('src/storage/postgres-store.test.ts')
      .and.include('test/replicas.test.ts');
    expect(lines.at(-1)).to.equal('Install them: apt-get install postgresql-15 chromium zsh (CONTRIBUTING.md, "Tests").');
  });

  it("CONTRIBUTING.md's apt-get line and table, and .ci/run, name every package of the catalogue", () => {
    const contributing = readFileSync(join(PACKAGE_ROOT, 'CONTRIBUTING.md'), 'utf8');
    const ci = readFileSync(join(PACKAGE_ROOT, '.ci', 'run'), 'utf8');
    const aptLine =
      /apt-get install --no-install-recommends ([^`]*?)\n {2}```/s.exec(contributing)?.[1].replace(/\\\n/g, ' ').split(/\s+/) ?? [];
    for (const { debian } of Object.values(PROGRAMS)) {
      expect(aptLine, `CONTRIBUTING.md's apt-get line: ${debian}`).to.include(debian);
      const rows = contributing
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l.startsWith('| `'));
      expect(
        rows.some((r) => r.split('|')[1].includes(`\`${debian}\``)),
        `CONTRIBUTING.md's table: ${debian}`,
      ).to.equal(true);
      expect(ci, `.ci/run: ${debian}`).to.include(`missing+=(${debian}`);
    }
  });

  it('says nothing when every program is there (or only names those that are not)', () => {
    delete process.env[WITHOUT_ENV];
    const missing = (Object.keys(PROGRAMS) as (keyof typeof PROGRAMS)[]).filter((id) => !programPath(id));
    const note = missingProgramsNote(['dist/test']);
    if (!missing.length) expect(note).to.equal('');
    else
      expect(
        note
          .split('\n')
          .filter((l) => l.startsWith('  - '))
          .map((l) => l.split(' ')[3]),
      ).to.deep.equal(missing);
  });

  it('every test file starting a program through a helper says it needs the program (needsPrograms or skipWithoutProgram)', () => {
    // Without that call the suite fails, instead of being skipped and named, where the program is missing.
    const helpers = /from '\.\.?\/(?:helpers\/|\.\.\/test\/helpers\/)?(browser|ui-stack|prometheus|node-exporter|postgres|mariadb)\.js'/;
    const silent = ['src', 'test']
      .flatMap((root) => readdirSync(join(PACKAGE_ROOT, root), { recursive: true }).map((f) => join(root, String(f))))
      .filter((f) => f.endsWith('.test.ts'))
      .filter((f) => {
        const text = readFileSync(join(PACKAGE_ROOT, f), 'utf8');
        return helpers.test(text) && !/needsPrograms\(|skipWithoutProgram\(/.test(text);
      });
    expect(silent).to.deep.equal([]);
  });
});
