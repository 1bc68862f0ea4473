import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dashctl, show } from '../test/helpers/dashctl.js';

const BOARD = (title: string) =>
  `import { dashboard } from 'dashplane/sdk';\nexport default dashboard({ name: 'board', title: '${title}' });\n`;

/**
 * Runs of dashctl in one process (cli/run.ts): each reads its own environment, working directory
 * and standard input from its Io, answers its exit code, and leaves nothing behind for the next.
 */
describe('dashctl runs in process', () => {
  let dir: string;
  const saved = { ...process.env };
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'dashctl-run-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  afterEach(() => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    process.exitCode = undefined;
  });

  it("reads the run's environment, not the process's; two runs side by side keep to their own files", async () => {
    // what the process's environment says must not reach a run whose environment says otherwise
    process.env.DASHCTL_CONTEXT = 'from-the-process';
    process.env.DASHCTL_CONFIG = join(dir, 'from-the-process.json');
    const [a, b] = await Promise.all(
      ['a', 'b'].map((n) =>
        dashctl(join(dir, `${n}.json`), ['config', 'set-context', `ctx-${n}`, '--server', `http://${n}.example:8080`, '-p', `team-${n}`]),
      ),
    );
    expect(a.code, show(a)).to.equal(0);
    expect(b.code, show(b)).to.equal(0);
    for (const n of ['a', 'b']) {
      expect(JSON.parse(readFileSync(join(dir, `${n}.json`), 'utf8'))).to.deep.equal({
        currentContext: `ctx-${n}`,
        contexts: { [`ctx-${n}`]: { url: `http://${n}.example:8080`, project: `team-${n}` } },
      });
    }
    const listed = await dashctl(join(dir, 'a.json'), ['config', 'get-contexts', '-o', 'name'], { env: { DASHCTL_CONTEXT: 'ctx-a' } });
    expect(listed.stdout, show(listed)).to.equal('ctx-a\n');
    const named = await dashctl(join(dir, 'a.json'), ['config', 'set', 'project', 'x'], { env: { DASHCTL_CONTEXT: 'nope' } });
    expect(named.code, show(named)).to.equal(1);
    expect(named.stderr).to.include('context "nope" does not exist');
  });

  it('reads relative paths and standard input from the run; an invalid input is exit code 1, and process.exitCode is left alone', async () => {
    writeFileSync(join(dir, 'bad.yaml'), 'kind: Folder\nmetadata: {name: "no good"}\nspec: {}\n');
    const r = await dashctl(join(dir, 'c.json'), ['lint', '-f', 'bad.yaml'], { cwd: dir });
    expect(r.code, show(r)).to.equal(1);
    expect(r.stderr)
      .to.match(/^bad\.yaml Folder no good: invalid Folder/m)
      .and.include('(bad.yaml:2)');
    expect(process.exitCode).to.equal(undefined);
    const piped = await dashctl(join(dir, 'c.json'), ['lint', '-f', '-'], { input: 'kind: Folder\nmetadata: {name: fine}\nspec: {}\n' });
    expect(piped.code, show(piped)).to.equal(0);
    expect(piped.stdout).to.equal('1 resource(s) checked, 0 invalid\n');
  });

  it('a usage error is an exit code and a message, never an exit of the process; --help is exit 0', async () => {
    const r = await dashctl(join(dir, 'c.json'), ['get', 'dash', '-n', 'x']);
    expect(r.code, show(r)).to.equal(1);
    expect(r.stderr).to.include("unknown option '-n'; did you mean -p / --project <name>");
    const help = await dashctl(join(dir, 'c.json'), ['get', '--help']);
    expect(help.code, show(help)).to.equal(0);
    expect(help.stdout).to.match(/^Usage: dashctl get \[options\] <kind> \[names\.\.\.\]/);
  });

  it('a TypeScript file changed between two runs is built afresh (no module of the first run is reused)', async () => {
    const build = () => dashctl(join(dir, 'c.json'), ['build', '-f', 'board.ts', '-o', 'json'], { cwd: dir });
    writeFileSync(join(dir, 'board.ts'), BOARD('First'));
    const first = await build();
    expect(first.code, show(first)).to.equal(0);
    expect(JSON.parse(first.stdout).spec.display.name).to.equal('First');
    writeFileSync(join(dir, 'board.ts'), BOARD('Second'));
    const second = await build();
    expect(JSON.parse(second.stdout).spec.display.name, show(second)).to.equal('Second');
  });
});
