import { phaseOf } from '../../kinds/apply-order.js';
import type { KindRegistry } from '../../kinds/registry.js';
import { isObj } from '../../lib/is-obj.js';
import type { Candidate, ProblemType } from './apply.js';
import type { FileDocument } from './read-folder.js';

/** A resource of a source: what it is, and why it is not written (when it is not). */
export interface Found {
  source: number;
  doc: FileDocument;
  candidate?: Candidate;
  problem?: { type: ProblemType; message: string };
}

/** The object a document stands for, or why it is skipped before anything is written. */
export function candidateOf(registry: KindRegistry, doc: FileDocument): Pick<Found, 'candidate' | 'problem'> {
  const v = doc.value;
  if (!isObj(v))
    return invalid(
      `holds ${v === null ? 'null' : Array.isArray(v) ? 'a list inside a list' : `a ${typeof v}`}, not a resource (an object with kind, metadata and spec)`,
    );
  if (typeof v.apiVersion === 'string')
    return {
      problem: { type: 'unsupported', message: `${v.apiVersion} ${String(v.kind)} is not a Perses resource (it has apiVersion); skipped` },
    };
  if (typeof v.kind !== 'string' || v.kind === '') return invalid('kind is missing: add the kind of the resource (e.g. "kind: Dashboard")');
  const d = registry.byName(v.kind);
  if (!d)
    return {
      problem: {
        type: 'unsupported',
        message: `unknown kind "${v.kind}"; it is none of ${registry
          .all()
          .map((k) => k.kind)
          .join(', ')}`,
      },
    };
  if (d.ttlPath)
    return {
      problem: {
        type: 'unsupported',
        message: `${d.kind} is not provisioned: it expires after its ttl (Perses does not provision it either); skipped`,
      },
    };
  const m = isObj(v.metadata) ? v.metadata : {};
  if (typeof m.name !== 'string' || m.name === '') return invalid('metadata.name is missing: name the resource');
  if (d.scope === 'project' && (typeof m.project !== 'string' || m.project === ''))
    return invalid(`metadata.project is missing: a ${d.kind} lives in a project; name it`);
  const project = d.scope === 'project' ? (m.project as string) : undefined;
  return {
    candidate: {
      d,
      key: { kind: d.kind, project: project ?? '', name: m.name },
      body: v,
      label: project !== undefined ? `${d.kind} ${project}/${m.name}` : `${d.kind} ${m.name}`,
    },
  };
}

/**
 * The objects to write, in order: projects first, then principals, then what names them
 * (phaseOf), each phase in source and file order. An object held twice is written from its first
 * place only: the second is a problem, in this pass and, for an object an earlier source held at
 * its last read (`claimedEarlier`), across passes too, so two sources never overwrite each other
 * in turn.
 */
export function ordered(
  found: Found[],
  claimedEarlier: (source: number, key: string) => string | undefined,
  where: (f: Found) => string,
): Found[] {
  const first = new Map<string, Found>();
  for (const f of found) {
    if (!f.candidate) continue;
    const key = keyText(f.candidate);
    const earlier = first.get(key);
    const other = earlier ? where(earlier) : claimedEarlier(f.source, key);
    if (other !== undefined)
      f.problem = { type: 'duplicate', message: `also in ${other}, which is written; this copy is skipped (keep one of them)` };
    else first.set(key, f);
  }
  const phase = (f: Found) => (f.candidate ? phaseOf(f.candidate.d) : -1);
  return found
    .map((f, i) => ({ f, i }))
    .sort((a, b) => phase(a.f) - phase(b.f) || a.i - b.i)
    .map((x) => x.f);
}

/** `Dashboard/demo/cpu`: the identity of an object in a pass. */
export function keyText(c: Candidate): string {
  return `${c.key.kind}/${c.key.project}/${c.key.name}`;
}

function invalid(message: string): Pick<Found, 'problem'> {
  return { problem: { type: 'invalid', message } };
}
