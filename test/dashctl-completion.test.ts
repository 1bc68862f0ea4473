import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DASHCTL_BIN, dashctl } from './helpers/dashctl.js';
import { tempDir } from './helpers/server.js';

/**
 * `dashctl completion bash|zsh|fish`, run in the real shells: each script asks
 * `dashctl __complete` (the commander tree, kind names, context names) what to offer.
 */
describe('dashctl completion (bash, zsh, fish)', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let env: Record<string, string>;

  before(async () => {
    tmp = tempDir('dashctl-completion-');
    const bin = join(tmp.path, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'dashctl'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(DASHCTL_BIN)} "$@"\n`);
    chmodSync(join(bin, 'dashctl'), 0o755);
    const cfg = join(tmp.path, 'config.json');
    env = { ...(process.env as Record<string, string>), PATH: `${bin}:${process.env.PATH}`, DASHCTL_CONFIG: cfg };
    expect((await dashctl(cfg, ['config', 'set-context', 'prod:8080', '--server', 'http://127.0.0.1:8080'])).code).to.equal(0);
  });
  after(() => tmp?.remove());

  const shell = (name: string, script: string) => {
    const r = spawnSync(name, ['-c', script], { env, encoding: 'utf8', cwd: tmp.path });
    expect(r.status, `${name}: ${r.stderr}`).to.equal(0);
    return r.stdout.split('\n').filter(Boolean);
  };
  const has = (name: string) => spawnSync(name, ['-c', 'exit 0']).status === 0;

  it('bash: subcommands, kind names, option choices, context names (with ":"), files otherwise', () => {
    const complete = (line: string) =>
      shell('bash', `source <(dashctl completion bash); COMP_LINE=${JSON.stringify(line)}; COMP_POINT=\${#COMP_LINE}; _dashctl_complete; printf '%s\\n' "\${COMPREPLY[@]}"`);
    expect(complete('dashctl de')).to.deep.equal(['describe', 'delete']);
    expect(complete('dashctl get dashb')).to.deep.equal(['dashboards']);
    expect(complete('dashctl edit globald')).to.deep.equal(['globaldatasources']);
    expect(complete('dashctl delete -p x proj')).to.deep.equal(['projects', 'proj']);
    expect(complete('dashctl get dash -o y')).to.deep.equal(['yaml']);
    expect(complete('dashctl config use-context pr')).to.deep.equal(['prod:8080']);
    expect(complete('dashctl --context prod:8')).to.deep.equal(['8080']);
    expect(complete('dashctl config g')).to.deep.equal(['get-contexts']);
    expect(complete('dashctl apply --dr')).to.deep.equal(['--dry-run']);
    expect(complete('dashctl apply -f ')).to.deep.equal([]);
  });

  it('zsh: the same candidates through compadd, files when there are none', function () {
    if (!has('zsh')) this.skip();
    const complete = (...words: string[]) =>
      shell(
        'zsh',
        `compadd() { [[ $1 == -a ]] && print -l -- \${(P)2} }; _files() { print '<files>' }; compdef() {}; source <(dashctl completion zsh); words=(dashctl ${words.map((w) => JSON.stringify(w)).join(' ')}); CURRENT=${words.length + 1}; _dashctl`,
      );
    expect(complete('get', 'dashb')).to.deep.equal(['dashboards']);
    expect(complete('completion', '')).to.deep.equal(['bash', 'zsh', 'fish']);
    expect(complete('apply', '-f', '')).to.deep.equal(['<files>']);
  });

  it('fish: complete -C offers the same candidates, files when there are none', function () {
    if (!has('fish')) this.skip();
    writeFileSync(join(tmp.path, 'manifest.yaml'), 'kind: Folder\n');
    const complete = (line: string) => shell('fish', `dashctl completion fish | source; complete -C ${JSON.stringify(line)}`);
    expect(complete('dashctl get dashb')).to.deep.equal(['dashboards']);
    expect(complete('dashctl config use-context ')).to.deep.equal(['prod:8080']);
    expect(complete('dashctl apply -f manif')).to.deep.equal(['manifest.yaml']);
  });
});
