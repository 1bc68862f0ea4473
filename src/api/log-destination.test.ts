import { expect } from 'chai';
import { spawnSync } from 'node:child_process';

/** Runs a process that logs `n` lines through serverLogger and then ends the way `how` says. */
function run(how: string, n = 2000): { lines: number; status: number | null } {
  const logger = new URL('./log-destination.js', import.meta.url).href;
  const script = `import { serverLogger } from ${JSON.stringify(logger)};
const log = serverLogger('info');
for (let i = 0; i < ${n}; i++) log.info({ i }, 'line');
${how}`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return { lines: r.stdout.split('\n').filter((l) => l.includes('"msg":"line"')).length, status: r.status };
}

describe('serverLogger: batched lines are all written however the process ends', () => {
  it('at the natural end of the process', () => expect(run('')).to.deep.equal({ lines: 2000, status: 0 }));
  it('on process.exit in the same turn', () => expect(run('process.exit(3);')).to.deep.equal({ lines: 2000, status: 3 }));
  it('on an uncaught exception', () => expect(run("setTimeout(() => { throw new Error('fatal'); });")).to.deep.equal({ lines: 2000, status: 1 }));
  it('on an unhandled rejection', () => expect(run("Promise.reject(new Error('fatal'));")).to.deep.equal({ lines: 2000, status: 1 }));
});
