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
  it('on an uncaught exception', () =>
    expect(run("setTimeout(() => { throw new Error('fatal'); });")).to.deep.equal({ lines: 2000, status: 1 }));
  it('on an unhandled rejection', () => expect(run("Promise.reject(new Error('fatal'));")).to.deep.equal({ lines: 2000, status: 1 }));
});

describe('RequestLines: the request line written straight to the batched writer', () => {
  it('is the line pino writes for the same fields through a request logger (keys in the same order; a lazy request logger logs with reqId)', () => {
    const module = new URL('./log-destination.js', import.meta.url).href;
    const script = `import { serverLogger, requestLinesOf, LazyChildLogger } from ${JSON.stringify(module)};
const log = serverLogger('info');
const fields = { user: 'ana "the admin"', method: 'GET', route: '/api/v1/projects/:project', status: 200, ms: 1.5 };
requestLinesOf(log).write({ reqId: 'r-1', ...fields });
log.child({ reqId: 'r-1' }).info(fields, 'request');
requestLinesOf(log).write({ reqId: 'r-2', user: undefined, method: 'GET', route: 'unmatched', status: 499, ms: 2, abandoned: true });
log.child({ reqId: 'r-2' }).info({ user: undefined, method: 'GET', route: 'unmatched', status: 499, ms: 2, abandoned: true }, 'request');
new LazyChildLogger(log, { reqId: 'r-3' }, {}).warn({ secret: 'x' }, 'lazy');`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    const lines = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines, r.stderr).to.have.length(5);
    const untimed = (l: Record<string, unknown>) => JSON.stringify({ ...l, time: 0 });
    expect(untimed(lines[0])).to.equal(untimed(lines[1]));
    expect(untimed(lines[2])).to.equal(untimed(lines[3]));
    expect(lines[4]).to.deep.include({ level: 40, reqId: 'r-3', secret: 'x', msg: 'lazy' });
  });

  it('writes nothing when the level keeps info lines out', () => {
    const module = new URL('./log-destination.js', import.meta.url).href;
    const script = `import { serverLogger, requestLinesOf } from ${JSON.stringify(module)};
requestLinesOf(serverLogger('warn')).write({ reqId: 'r', user: 'u', method: 'GET', route: '/', status: 200, ms: 1 });`;
    expect(spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).stdout).to.equal('');
  });
});
