import { expect } from 'chai';
import { fromOperator } from './operator.js';

describe('dashctl operator resources', () => {
  it('converts perses-operator custom resources', () => {
    const v2 = fromOperator({
      apiVersion: 'perses.dev/v1alpha2',
      kind: 'PersesDatasource',
      metadata: { name: 'ds', namespace: 'team' },
      spec: { instanceSelector: {}, config: { default: true } },
    });
    expect(v2!.object).to.deep.equal({ kind: 'Datasource', metadata: { name: 'ds', project: 'team' }, spec: { default: true } });
    expect(v2!.sourcePath(['spec', 'default'])).to.deep.equal(['spec', 'config', 'default']);
    const v1 = fromOperator({
      apiVersion: 'perses.dev/v1alpha1',
      kind: 'PersesGlobalDatasource',
      metadata: { name: 'g', namespace: 'x' },
      spec: { default: false },
    });
    expect(v1!.object).to.deep.equal({ kind: 'GlobalDatasource', metadata: { name: 'g' }, spec: { default: false } });
    expect(fromOperator({ apiVersion: 'perses.dev/v1alpha1', kind: 'Perses', metadata: {}, spec: {} })).to.equal(undefined);
  });
});
