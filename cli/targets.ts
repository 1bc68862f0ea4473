import type { KindDescriptor } from '../src/kinds/descriptor.js';
import type { HttpError } from './errors.js';
import { KINDS, label, nearestKind, PHASES, phaseOf } from './kinds.js';
import { where, type Manifest } from './manifests.js';
import { isObj } from '../src/lib/is-obj.js';

/** A manifest with its kind, name and project worked out. */
export interface Target {
  m: Manifest;
  d: KindDescriptor;
  name: string;
  /** Project kinds only. */
  project?: string;
  /** `Dashboard demo/cpu`. */
  label: string;
  /** `Dashboard\0demo\0cpu`: the same object in two files is a mistake. */
  key: string;
}

/** A manifest that cannot be sent, and why. */
export interface Unresolved {
  m: Manifest;
  message: string;
}

/** Where project-scoped objects go. */
export interface ProjectChoice {
  /** `-p/--project` as given on the command line. */
  flag?: string | undefined;
  /** The project when neither the manifest nor the flag names one (the context's default). */
  fallback?: string | undefined;
  /** `--force-project`: move objects that name another project into `flag`. */
  force?: boolean | undefined;
}

/**
 * Kind, name and project of each manifest: the kind must be a dashplane kind, the name present,
 * and a project-scoped object needs a project. One project rule: an object's own
 * `metadata.project` is where it goes; `-p` fills it in for objects that have none (else the
 * context's default) and must not contradict one that has it — that is an error naming the file,
 * the object and both projects, unless `--force-project` says to move the object (its
 * metadata.project is rewritten in the body sent). With `requireName: false` (offline lint) a
 * missing name is left for validation to report.
 */
export function resolveTargets(
  manifests: readonly Manifest[],
  choice: ProjectChoice,
  requireName = true,
): { targets: Target[]; unresolved: Unresolved[] } {
  const targets: Target[] = [];
  const unresolved: Unresolved[] = [];
  const seen = new Map<string, Manifest>();
  for (const m of manifests) {
    const kind = m.object.kind;
    const d = typeof kind === 'string' ? KINDS.byName(kind) : undefined;
    if (!d) {
      const known = KINDS.all()
        .map((k) => k.kind)
        .join(', ');
      const near = typeof kind === 'string' ? nearestKind(kind) : undefined;
      unresolved.push({
        m,
        message:
          typeof kind === 'string'
            ? `kind "${kind}" is not a dashplane kind${near ? `; did you mean ${near.kind}?` : ''} (known: ${known})`
            : 'kind: is required (e.g. kind: Dashboard)',
      });
      continue;
    }
    const meta = isObj(m.object.metadata) ? m.object.metadata : {};
    const odd = (['name', 'project'] as const).find((f) => meta[f] !== undefined && meta[f] !== null && typeof meta[f] !== 'string');
    if (odd) {
      unresolved.push({ m, message: `${d.kind} metadata.${odd}: ${notAString(meta[odd])}` });
      continue;
    }
    const name = typeof meta.name === 'string' ? meta.name : '';
    if (!name && requireName) {
      unresolved.push({ m, message: `${d.kind} without metadata.name` });
      continue;
    }
    let project: string | undefined;
    if (d.scope === 'project') {
      const own = typeof meta.project === 'string' && meta.project ? meta.project : undefined;
      if (own !== undefined && choice.flag && own !== choice.flag) {
        if (!choice.force) {
          unresolved.push({
            m,
            message: `${label(d, name, own)} says metadata.project "${own}" but -p says "${choice.flag}"; drop -p to apply it to "${own}", change metadata.project, or pass --force-project to move it into "${choice.flag}"`,
          });
          continue;
        }
        meta.project = choice.flag;
        m.object.metadata = meta;
      }
      project = own !== undefined && !choice.force ? own : choice.flag || own || choice.fallback;
      if (!project && requireName) {
        unresolved.push({
          m,
          message: `${d.kind} "${name}" has no metadata.project; add one, pass --project NAME or set a default with dashctl project NAME`,
        });
        continue;
      }
    }
    const key = [d.kind, project ?? '', name].join('\u0000');
    const earlier = seen.get(key);
    if (earlier && requireName) {
      unresolved.push({ m, message: `${label(d, name, project)} is also defined in ${where(earlier)}; keep one` });
      continue;
    }
    seen.set(key, m);
    targets.push({ m, d, name, ...(project !== undefined ? { project } : {}), label: label(d, name, project), key });
  }
  return { targets, unresolved };
}

/** Why a name field that is not a string is wrong, in words (`{{PROJECT}}` unquoted is a YAML map). */
function notAString(v: unknown): string {
  if (isObj(v))
    return 'must be a string, not a map; an unrendered template such as {{PROJECT}} reads as one in YAML: render it, or quote a literal name';
  if (Array.isArray(v)) return 'must be a string, not a list';
  return `must be a string, not the ${typeof v} ${JSON.stringify(v)} (in YAML, quote a name such as "0123")`;
}

/** Targets grouped by apply phase (see phaseOf): Projects, global principals, other global kinds, project principals, other project kinds. */
export function phases(targets: readonly Target[]): Target[][] {
  const out: Target[][] = PHASES.map(() => []);
  for (const t of targets) out[phaseOf(t.d)].push(t);
  return out;
}

/** The error of one object, naming its file (with line), the object and every JSON path. */
export function describeFailure(t: { m: Manifest; label?: string }, e: unknown): string {
  const head = `${where(t.m)} ${t.label ?? ''}`.trimEnd();
  const http = e as HttpError;
  if (http && http.name === 'HttpError') {
    const details = http.details.map((d) => {
      const line = t.m.lineOf(d.path);
      const at = t.m.sourceOf ? t.m.sourceOf(d.path) : line ? `${t.m.file}:${line}` : undefined;
      return `    ${d.path}: ${d.message}${at ? `  (${at})` : ''}`;
    });
    return [`${head}: ${headline(http)} (${http.status}${http.reason ? ` ${http.reason}` : ''})`, ...details].join('\n');
  }
  return `${head}: ${e instanceof Error ? e.message : String(e)}`;
}

/** The server's message, without the first problem it repeats when the details list them all. */
function headline(e: HttpError): string {
  const first = e.details[0];
  if (!first || !e.message.includes(`${first.path}: ${first.message}`)) return e.message;
  const cut = e.message.slice(0, e.message.indexOf(`${first.path}: ${first.message}`)).replace(/[,:]?\s*(first:)?\s*$/, '');
  return cut || e.message;
}
