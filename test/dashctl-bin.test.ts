/**
 * What only the dashctl bin does (cli/bin/dashctl.ts), in child processes against a real server:
 * the exit code reaches the shell, everything written reaches a pipe before the process exits,
 * stdin is read from a pipe, Ctrl-C and SIGTERM end a watch, and on a terminal (a pseudo-terminal
 * made by util-linux's script) tables are coloured unless NO_COLOR is set and prompts are asked.
 * Everything else about the commands is tested in process (test/helpers/dashctl.ts).
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DASHCTL_BIN, dashctlProcess, show } from './helpers/dashctl.js';
import { exited } from './helpers/process.js';
import { startTestServer, tempDir, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

describe('the dashctl bin (child processes)', function () {
  this.timeout(60_000);
  let srv: TestServer;
  let tmp: ReturnType<typeof tempDir>;
  let cfg: string;
  const run = (args: string[], input?: string) => dashctlProcess(cfg, args, { input });

  before(async () => {
    srv = await startTestServer();
    tmp = tempDir('dashctl-bin-');
    cfg = join(tmp.path, 'config.json');
    expect((await run(['login', srv.url])).code).to.equal(0);
    await srv.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'bin' }, spec: {} });
  });
  after(async () => {
    await srv?.stop();
    tmp?.remove();
  });

  it("exit codes reach the shell: 0, diff's 1 (changes) and 2 (errors), 1 for a usage error and a refusal, 0 for --help", async () => {
    const folder = join(tmp.path, 'folder.yaml');
    writeFileSync(folder, 'kind: Folder\nmetadata: {name: f, project: bin}\nspec: {}\n');
    expect((await run(['diff', '-f', folder])).code).to.equal(1);
    expect((await run(['apply', '-f', folder])).code).to.equal(0);
    expect((await run(['diff', '-f', folder])).code).to.equal(0);
    const broken = await run(['diff', '-f', join(tmp.path, 'missing.yaml')]);
    expect(broken.code, show(broken)).to.equal(2);
    const usage = await run(['get', 'dash', '--no-such-flag']);
    expect(usage.code, show(usage)).to.equal(1);
    expect(usage.stderr).to.include("error: unknown option '--no-such-flag'");
    const refused = await run(['get', 'dash', 'nope', '-p', 'bin']);
    expect(refused.code, show(refused)).to.equal(1);
    expect(refused.stderr).to.equal('error: Dashboard "nope" not found in project "bin" (dashctl get dashboards -p bin lists them)\n');
    const help = await run(['--help']);
    expect(help.code).to.equal(0);
    expect(help.stdout).to.match(/^Usage: dashctl /);
  });

  it('reads stdin from a pipe, and a large output reaches the pipe whole before the process exits', async () => {
    const folders = Array.from(
      { length: 400 },
      (_, i) => `kind: Folder\nmetadata: {name: piped-${i}, project: bin}\nspec: {display: {name: "${'x'.repeat(200)}"}}\n`,
    ).join('---\n');
    const applied = await run(['apply', '-f', '-', '-q'], folders);
    expect(applied.code, show(applied)).to.equal(0);
    expect(applied.stdout).to.include('created 400,');
    const listed = await run(['get', 'folders', '-p', 'bin', '--prefix', 'piped-', '-o', 'json']);
    expect(listed.code).to.equal(0);
    expect(listed.stdout.length).to.be.above(100_000);
    expect(JSON.parse(listed.stdout)).to.have.length(400);
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} ends get --watch`, async () => {
      const child = spawn(process.execPath, [DASHCTL_BIN, 'get', 'folders', '-p', 'bin', '--prefix', 'f', '--watch'], {
        env: { ...process.env, DASHCTL_CONFIG: cfg, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
      await waitFor('the first event', () => /ADDED\s+f\b/.test(out), 20_000);
      const done = exited(child);
      child.kill(signal);
      await done;
      expect(child.signalCode ?? child.exitCode).to.equal(signal);
    });
  }

  /** Runs dashctl on a pseudo-terminal (`script`); `answer` is typed once `prompt` shows. */
  const onTerminal = (args: string[], env: Record<string, string> = {}, dialog?: { prompt: string; answer: string }) =>
    new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const command = [process.execPath, DASHCTL_BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
      const child = spawn('script', ['-qefc', command, '/dev/null'], {
        env: { ...process.env, DASHCTL_CONFIG: cfg, TERM: 'xterm', ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let output = '';
      let answered = false;
      child.stdout.on('data', (b: Buffer) => {
        output += b.toString();
        if (dialog && !answered && output.includes(dialog.prompt)) {
          answered = true;
          child.stdin.write(dialog.answer);
        }
      });
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, output }));
    });

  it('on a terminal: a table is coloured, unless NO_COLOR is set', async () => {
    const coloured = await onTerminal(['get', 'folders', '-p', 'bin', '--prefix', 'f']);
    expect(coloured.code, coloured.output).to.equal(0);
    expect(coloured.output).to.include('\x1b[1mf\x1b[0m');
    const plain = await onTerminal(['get', 'folders', '-p', 'bin', '--prefix', 'f'], { NO_COLOR: '1' });
    expect(plain.output)
      .to.match(/^f\s+\d+\s+\d+[sm]\r?$/m)
      .and.not.include('\x1b[');
  });

  it('on a terminal: deleting a project asks first, and a yes deletes it', async () => {
    await srv.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'asked' }, spec: {} });
    const r = await onTerminal(
      ['delete', 'project', 'asked'],
      {},
      { prompt: 'Delete project asked and everything in it? [y/N]', answer: 'y\n' },
    );
    expect(r.code, r.output).to.equal(0);
    expect(r.output).to.include('Project asked deleted');
    expect((await srv.api('GET', '/api/v1/projects/asked')).status).to.equal(404);
  });
});
