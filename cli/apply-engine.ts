import type { ApiClient } from './api-client.js';
import { UNCHANGED_HEADER } from '../src/api/headers.js';
import { collectionPath, KINDS, objectPath, PHASES, phaseOf } from './kinds.js';
import { mapPool } from './pool.js';
import { claimsFlag } from './flag-claims.js';
import type { Plan, Step } from './plan.js';
import { isObj } from '../src/lib/is-obj.js';
import type { Target } from './targets.js';

export type Outcome = 'created' | 'configured' | 'unchanged' | 'failed';

export interface ApplyOptions {
  concurrency: number;
  /** Called once per step of the plan. */
  onResult(r: ApplyResult): void;
}

export interface ApplyResult {
  /** Undefined for a project created by --create-project. */
  target?: Target;
  label: string;
  outcome: Outcome;
  error?: unknown;
}

const OUTCOME = { create: 'created', configure: 'configured', unchanged: 'unchanged' } as const;

/**
 * Carries out the writes of a plan (see plan.ts) in the phases of phaseOf (Projects, then
 * principals before the grants naming them, global kinds before project kinds), each in
 * parallel except the objects claiming a scope-wide flag, which go one at a time after the rest.
 * An update is conditional on the version it was planned against (If-Match): an object changed
 * since the plan was made fails instead of being overwritten.
 */
export async function applyPlan(api: ApiClient, plan: Plan, o: ApplyOptions): Promise<ApplyResult[]> {
  const results: ApplyResult[] = [];
  const report = (r: ApplyResult) => {
    results.push(r);
    o.onResult(r);
  };
  for (const s of plan.steps.filter((x) => x.action === 'unchanged'))
    report({ ...(s.target ? { target: s.target } : {}), label: s.label, outcome: 'unchanged' });
  const writes = plan.steps.filter((x) => x.action !== 'unchanged');
  for (const phase of PHASES) {
    const inPhase = writes.filter((s) => (s.target ? phaseOf(s.target.d) : 0) === phase);
    const claims = inPhase.filter((s) => s.target && claimsFlag(s.target));
    await mapPool(
      inPhase.filter((s) => !claims.includes(s)),
      o.concurrency,
      async (s) => report(await write(api, s)),
    );
    for (const s of claims) report(await write(api, s));
  }
  return results;
}

async function write(api: ApiClient, s: Step): Promise<ApplyResult> {
  const base = { ...(s.target ? { target: s.target } : {}), label: s.label };
  const d = s.target?.d ?? KINDS.projectKind;
  const name = s.target?.name ?? String(isObj(s.body.metadata) ? s.body.metadata.name : undefined);
  const project = s.target?.project;
  try {
    if (s.action === 'create') {
      await api.call('POST', collectionPath(d, project), { body: s.body });
      return { ...base, outcome: 'created' };
    }
    const ifMatch = s.version !== undefined ? { 'if-match': `"${s.version}"` } : undefined;
    const res = await api.call('PUT', objectPath(d, name, project), { body: s.body, headers: ifMatch });
    return { ...base, outcome: res.headers.get(UNCHANGED_HEADER) === 'true' ? 'unchanged' : OUTCOME[s.action] };
  } catch (error) {
    return { ...base, outcome: 'failed', error };
  }
}
