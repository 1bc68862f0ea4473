import { expect } from 'chai';
import { editDistance, nearestKind, resolveKind, resourceName } from './kinds.js';

describe('dashctl kinds', () => {
  it('resolves kinds from aliases, plurals and any case', () => {
    const cases: Record<string, string> = {
      dash: 'Dashboard',
      DS: 'Datasource',
      gds: 'GlobalDatasource',
      var: 'Variable',
      gvar: 'GlobalVariable',
      dashboards: 'Dashboard',
      globalRoles: 'GlobalRole',
      project: 'Project',
      Users: 'User',
    };
    for (const [text, kind] of Object.entries(cases)) expect(resolveKind(text).kind, text).to.equal(kind);
    expect(() => resolveKind('gizmo')).to.throw('unknown kind "gizmo"');
  });
  it('suggests the nearest kind for a typo, and none for another word', () => {
    expect(editDistance('dashbords', 'dashboards')).to.equal(1);
    expect(editDistance('', 'abc')).to.equal(3);
    expect(nearestKind('dashbords')?.plural).to.equal('dashboards');
    expect(nearestKind('globaldatasource')?.plural).to.equal('globaldatasources');
    expect(nearestKind('varables')?.plural).to.equal('variables');
    expect(nearestKind('gizmos')).to.equal(undefined);
    expect(() => resolveKind('Dashbaord')).to.throw('did you mean dashboards?');
    expect(() => resolveKind('gizmo')).to.throw(/^unknown kind "gizmo"\nknown kinds: /);
  });
  it('names objects kubectl-style: kind/project/name, kind/name for global kinds', () => {
    expect(resourceName(resolveKind('dash'), 'cpu', 'team-a')).to.equal('dashboard/team-a/cpu');
    expect(resourceName(resolveKind('gds'), 'prom')).to.equal('globaldatasource/prom');
    expect(resourceName(resolveKind('projects'), 'team-a', 'team-a')).to.equal('project/team-a');
  });
});
