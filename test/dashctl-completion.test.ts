import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { DASHCTL_BIN, dashctl } from './helpers/dashctl.js';
import { startTestServer, tempDir, type TestServer } from './helpers/server.js';
import { skipWithoutProgram } from './helpers/programs.js';

/**
 * `dashctl completion bash|zsh|fish`, run in the real shells: each script asks
 * `dashctl __complete` (the commander tree, kind names, context names, and the server's projects
 * and object names) what to offer. The shells run asynchronously: the server they ask is in this
 * process. Each shell loads its script as the docs say once (`source <(dashctl completion bash)`),
 * then from a file holding it (one dashctl process less per TAB). What the server offers is asked
 * of `dashctl __complete` in process too (`ask`): the scripts pass the words on whatever completes
 * them, and the shells show it once each.
 */
describe('dashctl completion (bash, zsh, fish)', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  /** The environment of a user whose current context is the test server (default project demo). */
  let served: Record<string, string>;
  /** Its configuration file. */
  let servedConfig: string;
  let srv: TestServer;
  /** A server that accepts connections and never answers. */
  let stuck: Server;
  const held: Socket[] = [];
  /** How each shell loads its script: as the docs say, or from the file `dashctl completion SHELL` wrote (`before`). */
  const documented = {
    bash: 'source <(dashctl completion bash)',
    zsh: 'source <(dashctl completion zsh)',
    fish: 'dashctl completion fish | source',
  };
  const load = { ...documented };

  before(async () => {
    srv = await startTestServer();
    for (const p of ['demo', 'team-b'])
      expect((await srv.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: p }, spec: {} })).status).to.equal(200);
    for (const [p, d] of [
      ['demo', 'cpu'],
      ['demo', 'memory'],
      ['team-b', 'disk'],
    ]) {
      const r = await srv.api('POST', `/api/v1/projects/${p}/dashboards`, {
        kind: 'Dashboard',
        metadata: { name: d },
        spec: { duration: '1h', panels: {}, layouts: [] },
      });
      expect(r.status, r.text).to.equal(200);
    }
    stuck = createServer((s) => void held.push(s));
    await new Promise<void>((r) => stuck.listen(0, '127.0.0.1', r));
    tmp = tempDir('dashctl-completion-');
    const bin = join(tmp.path, 'bin');
    mkdirSync(bin);
    // each run of dashctl the shells make leaves a line in the file `runs` counts
    writeFileSync(
      join(bin, 'dashctl'),
      `#!/bin/sh\necho "$*" >> ${JSON.stringify(join(tmp.path, 'runs'))}\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(DASHCTL_BIN)} "$@"\n`,
    );
    chmodSync(join(bin, 'dashctl'), 0o755);
    const cfg = join(tmp.path, 'config.json');
    env = { ...(process.env as Record<string, string>), PATH: `${bin}:${process.env.PATH}`, DASHCTL_CONFIG: cfg };
    for (const sh of ['bash', 'zsh', 'fish'] as const) {
      const script = await dashctl(cfg, ['completion', sh]);
      expect(script.code, script.stderr).to.equal(0);
      writeFileSync(join(tmp.path, `completion.${sh}`), script.stdout);
      load[sh] = `source ${JSON.stringify(join(tmp.path, `completion.${sh}`))}`;
    }
    expect((await dashctl(cfg, ['config', 'set-context', 'prod:8080', '--server', 'http://127.0.0.1:8080'])).code).to.equal(0);
    servedConfig = join(tmp.path, 'served.json');
    served = { ...env, DASHCTL_CONFIG: servedConfig };
    for (const args of [
      ['config', 'set-context', 'local', '--server', srv.url, '-p', 'demo'],
      ['config', 'set-context', 'stuck', '--server', `http://127.0.0.1:${(stuck.address() as { port: number }).port}`],
      ['config', 'set-context', 'nowhere', '--server', 'http://127.0.0.1:9'],
    ]) {
      expect((await dashctl(servedConfig, args)).code).to.equal(0);
    }
  });
  after(async () => {
    for (const s of held) s.destroy();
    await new Promise((r) => stuck?.close(r));
    await srv?.stop();
    tmp?.remove();
  });

  /** How many times the shells ran dashctl so far. */
  const runs = (): number => {
    try {
      return readFileSync(join(tmp.path, 'runs'), 'utf8').split('\n').filter(Boolean).length;
    } catch {
      return 0;
    }
  };
  const shell = (name: string, script: string, e = env): Promise<string[]> =>
    new Promise((resolve, reject) => {
      execFile(name, ['-c', script], { env: e, encoding: 'utf8', cwd: tmp.path }, (error, stdout, stderr) => {
        if (error) reject(new Error(`${name}: ${error.message}\n${stderr}`));
        else resolve(stdout.split('\n').filter(Boolean));
      });
    });
  const bash = (line: string, e = env, how = load.bash) =>
    shell(
      'bash',
      `${how}; COMP_LINE=${JSON.stringify(line)}; COMP_POINT=\${#COMP_LINE}; _dashctl_complete; printf '%s\\n' "\${COMPREPLY[@]}"`,
      e,
    );

  it('bash: subcommands, kind names, option choices, context names (with ":"), files otherwise', async () => {
    const complete = (line: string) => bash(line);
    expect(await bash('dashctl de', env, documented.bash)).to.deep.equal(['describe', 'delete']);
    expect(await complete('dashctl get dashb')).to.deep.equal(['dashboards']);
    expect(await complete('dashctl edit globald')).to.deep.equal(['globaldatasources']);
    expect(await complete('dashctl delete -p x proj')).to.deep.equal(['projects', 'proj']);
    expect(await complete('dashctl get dash -o y')).to.deep.equal(['yaml']);
    expect(await complete('dashctl config use-context pr')).to.deep.equal(['prod:8080']);
    expect(await complete('dashctl --context prod:8')).to.deep.equal(['8080']);
    expect(await complete('dashctl config g')).to.deep.equal(['get-contexts']);
    expect(await complete('dashctl apply --dr')).to.deep.equal(['--dry-run']);
    expect(await complete('dashctl apply -f ')).to.deep.equal([]);
  });

  /** What `dashctl __complete` answers the served user for `line` (as the scripts split it), run in process. */
  const ask = async (line: string): Promise<string[]> => {
    const r = await dashctl(servedConfig, ['__complete', ...line.split(' ').slice(1)]);
    expect(r.code, r.stderr).to.equal(0);
    return r.stdout.split('\n').filter(Boolean);
  };

  it("projects and object names from the context's server, as kubectl completes namespaces and names", async () => {
    const before = runs();
    expect(await bash('dashctl get dashboards -p ', served)).to.deep.equal(['demo', 'team-b']);
    expect(runs() - before, 'one dashctl run (one request to the server) a TAB').to.equal(1);
    expect(await bash('dashctl get dashboards --project=te', served), "bash's word ends after '='").to.deep.equal(['team-b']);
    expect(await ask('dashctl get dashboards -p demo ')).to.deep.equal(['cpu', 'memory']);
    expect(await ask('dashctl get dashboards -p demo cpu '), 'a name given is not offered again').to.deep.equal(['memory']);
    expect(await ask('dashctl describe dash -p team-b d')).to.deep.equal(['disk']);
    expect(await ask('dashctl history dash m')).to.deep.equal(['memory']);
    expect(await ask('dashctl project t')).to.deep.equal(['team-b']);
    expect(
      await ask('dashctl --context nowhere get dashboards -p '),
      'another context: its server (nothing listening) offers nothing',
    ).to.deep.equal([]);
  });

  it('a server that does not answer costs a TAB at most the completion timeout (2 s), then nothing is offered', async () => {
    const start = Date.now();
    expect(await ask('dashctl --context stuck get dashboards -p ')).to.deep.equal([]);
    expect(Date.now() - start).to.be.below(6_000);
    expect(held.length, 'dashctl did ask the server').to.be.greaterThan(0);
  });

  it('zsh: the same candidates through compadd, files when there are none', async function () {
    skipWithoutProgram(this, 'zsh');
    const complete = (words: string[], e = env, how = load.zsh) =>
      shell(
        'zsh',
        `compadd() { [[ $1 == -a ]] && print -l -- \${(P)2} }; _files() { print '<files>' }; compdef() {}; ${how}; words=(dashctl ${words.map((w) => JSON.stringify(w)).join(' ')}); CURRENT=${words.length + 1}; _dashctl`,
        e,
      );
    expect(await complete(['get', 'dashb'], env, documented.zsh)).to.deep.equal(['dashboards']);
    expect(await complete(['completion', ''])).to.deep.equal(['bash', 'zsh', 'fish']);
    expect(await complete(['apply', '-f', ''])).to.deep.equal(['<files>']);
    expect(await complete(['get', 'dashboards', '-p', 'demo', ''], served)).to.deep.equal(['cpu', 'memory']);
  });

  it('fish: complete -C offers the same candidates, files when there are none', async function () {
    skipWithoutProgram(this, 'fish');
    writeFileSync(join(tmp.path, 'manifest.yaml'), 'kind: Folder\n');
    const complete = (line: string, e = env, how = load.fish) => shell('fish', `${how}; complete -C ${JSON.stringify(line)}`, e);
    expect(await complete('dashctl get dashb', env, documented.fish)).to.deep.equal(['dashboards']);
    expect(await complete('dashctl config use-context ')).to.deep.equal(['prod:8080']);
    expect(await complete('dashctl apply -f manif')).to.deep.equal(['manifest.yaml']);
    const before = runs();
    expect(await complete('dashctl get dashboards -p ', served)).to.deep.equal(['demo', 'team-b']);
    expect(runs() - before, 'one dashctl run (one request to the server) a TAB').to.equal(1);
  });
});
