import { getPath, setPathIfParentExists } from '../src/lib/object-path.js';
import type { ApiClient, ApiResponse, RequestOptions } from './api-client.js';
import { toHttpError } from './api-client.js';
import { CliError } from './errors.js';
import { where } from './manifests.js';
import type { Target } from './targets.js';

/**
 * Objects claiming a scope-wide flag (a default datasource: at most one per plugin kind in a
 * project, or among the global ones). The server checks the rule on every write, dry runs
 * included, against what is stored; these helpers add what only the whole input shows: two
 * claims in the input itself, and a claim that is fine once another object of the input gives
 * the flag up.
 */

/** Whether `t` claims its kind's scope-wide flag (e.g. `spec.default: true` on a datasource). */
export function claimsFlag(t: Target): boolean {
  return t.d.singleFlag !== undefined && getPath(t.m.object, t.d.singleFlag.flag) === true;
}

/** `Datasource\0demo\0prom`: the same key for a target and for the object the server names. */
const keyOf = (kind: string, project: string | undefined, name: string) => [kind, project ?? '', name].join('\u0000');

/**
 * The second (third...) claim of the same flag, for the same group (plugin kind), in the same
 * scope within the input: each is refused naming the first, before anything is sent.
 */
export function duplicateClaims(targets: readonly Target[]): { target: Target; label: string; error: CliError }[] {
  const first = new Map<string, Target>();
  const out: { target: Target; label: string; error: CliError }[] = [];
  for (const t of targets) {
    const rule = t.d.singleFlag;
    if (!rule || !claimsFlag(t)) continue;
    const group = String(getPath(t.m.object, rule.groupBy));
    const key = [t.d.kind, t.project ?? '', group].join('\u0000');
    const earlier = first.get(key);
    if (!earlier) {
      first.set(key, t);
      continue;
    }
    const scope = t.d.scope === 'project' ? `project "${t.project}"` : 'the global scope';
    const message =
      `${rule.flag} is true here (${where(t.m, rule.flag)}) and in ${where(earlier.m, rule.flag)} (${earlier.label}): ` +
      `there can be only one ${rule.label} for ${group} in ${scope}; set ${rule.flag} to false in one of them`;
    out.push({ target: t, label: t.label, error: new CliError(message) });
  }
  return out;
}

/** The objects of the input that will not hold the flag once applied (their manifests do not claim it). */
export function flagGivers(targets: readonly Target[]): Set<string> {
  return new Set(targets.filter((t) => t.d.singleFlag && !claimsFlag(t)).map((t) => keyOf(t.d.kind, t.project, t.name)));
}

const HOLDER = /^\S+ "([^"]+)" is already the /;

/**
 * The server's dry-run of a write (`dryRun=true` POST or PUT), as the write will be. A claim that
 * the server refuses only because another object holds the flag today is accepted when the input
 * gives that object's flag up (apply writes claims after every other object of their phase): the
 * dry run is then repeated with the flag off, so every other check (schema, references,
 * permissions) still answers for it. Only for a server that honours dry runs (plan.ts asks first;
 * ApiClient refuses the request otherwise).
 */
export async function dryRunWrite(
  api: ApiClient,
  t: Target,
  method: 'POST' | 'PUT',
  path: string,
  o: RequestOptions,
  givers: ReadonlySet<string>,
): Promise<ApiResponse> {
  const res = await api.request(method, path, { ...o, body: t.m.object, query: { dryRun: true } });
  const rule = t.d.singleFlag;
  if (res.status < 400 || !rule || !claimsFlag(t)) return res;
  const { details } = toHttpError(method, path, res);
  const held = details.filter((d) => d.path === rule.flag).map((d) => HOLDER.exec(d.message)?.[1]);
  if (!held.length || held.length !== details.length || !held.every((n) => n !== undefined && givers.has(keyOf(t.d.kind, t.project, n))))
    return res;
  const body = structuredClone(t.m.object);
  setPathIfParentExists(body, rule.flag, false);
  return api.request(method, path, { ...o, body, query: { dryRun: true } });
}
