import { expect } from 'chai';
import { tempDir } from '../../test/helpers/server.js';
import type { AuditDraft, AuditEntry } from '../storage/audit-types.js';
import { LevelStore } from '../storage/level-store.js';
import { AuditIncarnations } from './incarnations.js';

const draft = (
  action: AuditDraft['action'],
  kind: string | undefined,
  project: string | undefined,
  name: string,
  user = 'alice',
): AuditDraft => ({
  time: new Date().toISOString(),
  action,
  user,
  ...(kind ? { kind } : {}),
  ...(project !== undefined ? { project } : {}),
  name,
});
/** A project's own entry (a Project names itself as its project). */
const project = (action: AuditDraft['action'], name: string, user = 'alice') => draft(action, 'Project', name, name, user);

describe('AuditIncarnations: which entries belong to the current project of their name (real LevelStore)', () => {
  const dir = tempDir();
  let store: LevelStore;
  before(async () => {
    store = new LevelStore(dir.path);
    await store.open();
  });
  after(async () => {
    await store.close();
    dir.remove();
  });

  /** Appends drafts; returns the entries as numbered. */
  const append = async (...drafts: AuditDraft[]): Promise<AuditEntry[]> => {
    const from = await store.lastAuditId();
    await store.appendAudit(drafts);
    return (await store.listAudit({ afterId: from, limit: 1000 })).entries;
  };
  const names = (entries: readonly AuditEntry[]) => entries.map((e) => `${e.action} ${e.user} ${e.kind ?? '-'}/${e.name}`);

  it('hides the entries of an earlier project and of the time between, shows the current one, other projects and entries of no project', async () => {
    const old = await append(
      project('create', 'p'),
      draft('create', 'Dashboard', 'p', 'secretdash'),
      project('update', 'p'),
      draft('denied', 'Dashboard', 'p', 'x', 'bob'),
      project('delete', 'p'),
    );
    const between = await append(
      draft('denied', 'Dashboard', 'p', 'secretdash'),
      draft('login', undefined, undefined, 'alice'),
      project('create', 'q'),
    );
    const current = await append(
      project('create', 'p', 'bob'),
      draft('create', 'Role', 'p', 'owner', 'bob'),
      draft('create', 'Dashboard', 'q', 'd'),
    );
    const all = [...old, ...between, ...current];
    const shown = await new AuditIncarnations({ store, projectKind: 'Project' }).current(all);
    expect(names(shown)).to.deep.equal([
      'login alice -/alice',
      'create alice Project/q',
      'create bob Project/p',
      'create bob Role/owner',
      'create alice Dashboard/d',
    ]);
  });

  it('a project deleted and not created again: none of its entries; a log without its creation: all of them', async () => {
    const gone = await append(project('create', 'gone'), draft('create', 'Dashboard', 'gone', 'd'), project('delete', 'gone'));
    const kept = await append(draft('update', 'Dashboard', 'pruned', 'd'));
    expect(names(await new AuditIncarnations({ store, projectKind: 'Project' }).current([...gone, ...kept]))).to.deep.equal([
      'update alice Dashboard/d',
    ]);
  });

  it('reads past a page of project entries, extends what it knows downwards and upwards, and follows a stream', async () => {
    const first = await append(project('create', 'r'), draft('create', 'Dashboard', 'r', 'old'));
    // more project entries (of another project) than one page of the scan holds, before the re-creation
    await append(...Array.from({ length: 1200 }, () => project('update', 'busy')));
    await append(project('delete', 'r'), project('create', 'r', 'bob'));
    const recent = await append(draft('create', 'Dashboard', 'r', 'new', 'bob'));
    const inc = new AuditIncarnations({ store, projectKind: 'Project' });
    expect(names(await inc.current(recent))).to.deep.equal(['create bob Dashboard/new']);
    // older entries asked for later (the next page of a list): what lies between is read then
    expect(names(await inc.current(first))).to.deep.equal([]);
    // the project is deleted and created again while a stream follows the log
    const later = await append(
      draft('update', 'Dashboard', 'r', 'new', 'bob'),
      project('delete', 'r', 'admin'),
      draft('denied', 'Dashboard', 'r', 'new', 'bob'),
    );
    const again = await append(project('create', 'r', 'carol'), draft('create', 'Dashboard', 'r', 'c', 'carol'));
    expect(names(await inc.current([...later, ...again]))).to.deep.equal(['create carol Project/r', 'create carol Dashboard/c']);
    expect(names(await inc.current(recent)), 'and what was current before is no longer').to.deep.equal([]);
  });
});
