import { SYSTEM } from '../../access/authorizer.js';
import { ApiError } from '../../errors.js';
import type { KindDescriptor } from '../../kinds/descriptor.js';
import type { KindRegistry } from '../../kinds/registry.js';
import type { Obj } from '../../lib/is-obj.js';
import { MANAGER } from '../../resources/managers.js';
import type { ResourceService, WriteOptions } from '../../resources/service.js';
import type { ManagerEntry, ObjectKey, Store } from '../../storage/store.js';

/** One object a provisioning source holds, checked for shape, ready to be written. */
export interface Candidate {
  d: KindDescriptor;
  key: ObjectKey;
  /** The resource as the file holds it (the service never sees the cached copy). */
  body: Obj;
  /** `Dashboard demo/cpu`, `GlobalDatasource prom`. */
  label: string;
}

/**
 * Why something a source holds was not written as it says: a file that cannot be read or parsed,
 * a Git fetch that failed, a kind that is not provisioned, an object held twice, a project that
 * does not exist, an object the write pipeline refuses, a change made by someone else since
 * provisioning wrote the object, a failure of the store.
 */
export const PROBLEM_TYPES = ['read', 'fetch', 'unsupported', 'duplicate', 'unknown-project', 'invalid', 'conflict', 'failed'] as const;
export type ProblemType = (typeof PROBLEM_TYPES)[number];

/** What writing one object did, or why it was not written. */
export type ApplyResult =
  | { outcome: 'created' | 'updated' | 'unchanged' | 'taken-back' | 'raced' }
  | { outcome: 'problem'; type: ProblemType; message: string };

const AS_PROVISIONING = { manager: MANAGER.provisioning } as const;

/**
 * Writes one provisioned object through the ResourceService, as field manager `provisioning`:
 * created when missing, updated when its file says something else, left alone when it says the
 * same (no version, no history entry, no event). As dashctl does, it does not overwrite a change
 * someone else made since provisioning last wrote the object (a conflict); once the file holds
 * that change it takes the object back, and an object deleted meanwhile is created again.
 */
export class Applier {
  constructor(private readonly o: { service: ResourceService; store: Store; registry: KindRegistry }) {}

  async apply(c: Candidate): Promise<ApplyResult> {
    try {
      return await this.write(c);
    } catch (e) {
      // another replica (or a client) wrote between the read and the write: look again, once
      if (!raced(e)) return problemOf(e);
      try {
        return await this.write(c);
      } catch (again) {
        return raced(again) ? { outcome: 'raced' } : problemOf(again);
      }
    }
  }

  private async write(c: Candidate): Promise<ApplyResult> {
    const { service, store } = this.o;
    const project = c.d.scope === 'project' ? c.key.project : undefined;
    if (project !== undefined && !(await store.get({ kind: this.o.registry.projectKind.kind, project: '', name: project }))) {
      return {
        outcome: 'problem',
        type: 'unknown-project',
        message: `skipped: project "${project}" does not exist; add the ${this.o.registry.projectKind.kind} to a provisioning file (projects are written first) or create it`,
      };
    }
    const target = { name: c.key.name, ...(project !== undefined ? { project } : {}) };
    const current = await store.get(c.key);
    if (!current) {
      await service.create(SYSTEM, c.d, structuredClone(c.body), target, AS_PROVISIONING);
      return { outcome: 'created' };
    }
    const w: WriteOptions = { ...AS_PROVISIONING, skipUnchanged: true, ifMatch: current.metadata.version };
    const other = changedElsewhere(await store.managers(c.key), current.metadata.version);
    if (!other) {
      const r = await service.update(SYSTEM, c.d, structuredClone(c.body), target, w);
      return { outcome: r.unchanged ? 'unchanged' : 'updated' };
    }
    const probe = await service.update(SYSTEM, c.d, structuredClone(c.body), target, { ...w, dryRun: true });
    if (!probe.unchanged) return { outcome: 'problem', type: 'conflict', message: conflictText(other) };
    // the file now says what the other manager wrote: provisioning manages the object again
    await service.update(SYSTEM, c.d, structuredClone(c.body), target, { ...w, skipUnchanged: false });
    return { outcome: 'taken-back' };
  }
}

/**
 * The current writer and provisioning's last write when another manager wrote the current version
 * after provisioning had written the object; undefined when provisioning wrote it last or never.
 */
function changedElsewhere(managers: ManagerEntry[], version: number): { last: ManagerEntry; mine: ManagerEntry } | undefined {
  const last = managers.find((m) => m.version === version) ?? managers[0];
  const mine = managers.find((m) => m.manager === MANAGER.provisioning);
  return last && mine && last.manager !== MANAGER.provisioning ? { last, mine } : undefined;
}

function conflictText({ last, mine }: { last: ManagerEntry; mine: ManagerEntry }): string {
  return (
    `changed by ${last.updatedBy} through ${last.manager} at ${last.updatedAt} (version ${last.version}) since provisioning wrote version ${mine.version} at ${mine.updatedAt}; ` +
    'not overwritten: put that change into the file (provisioning then manages the object again), or delete the object (the next pass creates it again from the file)'
  );
}

function raced(e: unknown): boolean {
  return e instanceof ApiError && (e.reason === 'PreconditionFailed' || e.reason === 'AlreadyExists' || e.reason === 'Conflict');
}

/** A refusal of the write pipeline (the object as the file holds it is not valid...), or a failure of the store. */
function problemOf(e: unknown): ApplyResult {
  if (!(e instanceof ApiError)) return { outcome: 'problem', type: 'failed', message: `could not be written: ${(e as Error).message}` };
  const message = e.details?.length ? e.details.map((x) => `${x.path}: ${x.message}`).join('; ') : e.message;
  return { outcome: 'problem', type: e.reason === 'Invalid' || e.reason === 'BadRequest' ? 'invalid' : 'failed', message };
}
