import { expect } from 'chai';
import { ApiError } from '../errors.js';
import type { BodyLimits } from './body-limits.js';
import { Offload } from './offload.js';
import { yamlBodyToJson } from './yaml-body.js';

const LIMITS: BodyLimits = { maxDepth: 100, maxNodes: 1_000_000, maxKeys: 1_000_000, maxBytes: 10_000_000 };

/** A YAML mapping of `n` keys (about 20 characters each). */
const large = (n: number) => Array.from({ length: n }, (_, i) => `key${i}: [${i}, "v${i}"]`).join('\n');

describe('Offload: work that grows with a request, in a worker thread within a time limit (COST-01/02)', () => {
  let offload: Offload | undefined;
  afterEach(async () => {
    await offload?.close();
    offload = undefined;
  });

  it('gives what the task gives on the event loop, errors included', async () => {
    offload = new Offload(20_000);
    const text = large(20_000);
    expect(await offload.run('yaml', { text, limits: LIMITS }, 'too long')).to.equal(yamlBodyToJson(text, LIMITS));
    const refused = await offload.run('yaml', { text: `${text}\nkey0: again`, limits: LIMITS }, 'too long').catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(ApiError);
    expect((refused as ApiError).message).to.match(/duplicated mapping key \(line 20001, column 1\)/);
    const migrated = await offload.run(
      'migrate',
      {
        grafanaDashboard: { title: 'T', panels: [] },
        input: undefined,
        useDefaultDatasource: false,
        notes: [],
        pluginKinds: [],
        uiKinds: [],
        report: false,
      },
      'too long',
    );
    expect(JSON.parse(migrated.text)).to.include({ kind: 'Dashboard' });
    expect(JSON.parse(migrated.summary)).to.have.property('panels');
  });

  it('a task that takes longer than the limit is a 413 with its own message, and the next task gets a new worker', async () => {
    offload = new Offload(1);
    const slow = await offload.run('yaml', { text: large(200_000), limits: LIMITS }, 'the body took too long').catch((e: unknown) => e);
    expect(slow).to.be.instanceOf(ApiError);
    expect((slow as ApiError).reason).to.equal('PayloadTooLarge');
    expect((slow as ApiError).message).to.equal('the body took too long');
    await offload.close();
    offload = new Offload(20_000);
    expect(JSON.parse(await offload.run('yaml', { text: large(1000), limits: LIMITS }, 'too long'))).to.have.property('key999');
  });

  it('with 64 tasks waiting, the next is refused at once with 503 and Retry-After', async () => {
    offload = new Offload(20_000);
    const text = large(1000);
    const answers = Array.from({ length: 66 }, () =>
      offload!.run('yaml', { text, limits: LIMITS }, 'too long').then(
        () => 'done',
        (e: ApiError) => `${e.reason} ${e.headers?.['Retry-After']}`,
      ),
    );
    expect(await Promise.all(answers)).to.deep.equal([...Array(65).fill('done'), 'Unavailable 1']);
  });
});
