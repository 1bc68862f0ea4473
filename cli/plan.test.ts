import { expect } from 'chai';
import { planCounts } from './plan.js';

describe('dashctl plan', () => {
  it('the plan line counts each action, and refusals only when there are some', () => {
    const step = (action: 'create' | 'configure' | 'unchanged') => ({ label: 'x', action, body: {} });
    expect(planCounts({ steps: [step('create'), step('unchanged'), step('unchanged')], refused: [], prunes: [] })).to.equal(
      'create 1, configure 0, unchanged 2, prune 0',
    );
    expect(planCounts({ steps: [step('configure')], refused: [{ label: 'y', error: new Error('no') }], prunes: [] })).to.equal(
      'create 0, configure 1, unchanged 0, prune 0, refused 1',
    );
  });
});
