import { UNCHANGED_HEADER } from '../src/api/headers.js';
import { FIELD_MANAGER, type ApiClient } from './api-client.js';
import { desiredForm, hasUnverifiableSecrets, sameJson, withoutServerFields } from './compare.js';
import type { Target } from './targets.js';

/** The latest write of one field manager to an object (GET .../managers). */
interface ManagerEntry {
  version: number;
  updatedAt: string;
  updatedBy: string;
  manager: string;
}

/**
 * Whether applying `t` over `live` (as GET answered it) would change nothing. Compared locally,
 * except the sensitive values the server never shows: when the manifest carries some and
 * everything else is the same, the server is asked (a dry-run PUT, whose X-Dashplane-Unchanged
 * says so); no secret value comes back. A server that cannot tell (a Perses server, which is not
 * asked, or a refusal) makes it a change.
 */
export async function unchangedOnServer(api: ApiClient, t: Target, path: string, live: Record<string, unknown>): Promise<boolean> {
  if (!sameJson(desiredForm(t.d, t.m.object, t.name, t.project), withoutServerFields(live))) return false;
  if (!hasUnverifiableSecrets(t.d, t.m.object)) return true;
  return (await secretsCheck(api, t, path)).unchanged;
}

/**
 * The server's answer to "would this write change the secret values?": a dry-run PUT. A server
 * that does not honour dry runs (Perses) is not asked (the PUT would be a write): a change.
 */
export async function secretsCheck(api: ApiClient, t: Target, path: string): Promise<{ unchanged: boolean; why?: string }> {
  if (!(await api.honoursDryRun())) return { unchanged: false, why: 'the server does not honour dryRun, so it cannot compare them' };
  const res = await api.request('PUT', path, { body: t.m.object, query: { dryRun: true } });
  if (res.status === 200) return { unchanged: res.headers.get(UNCHANGED_HEADER) === 'true' };
  return { unchanged: false, why: `the server could not compare them: ${String(res.body?.message ?? `HTTP ${res.status}`)}` };
}

/**
 * Who changed the object at `path` since dashctl last applied it, as a sentence; undefined when nobody
 * did. The object's managers record (GET .../managers) holds the latest write of each field
 * manager: a conflict is a current version written by another manager (the web UI, the API, a
 * restore...) while an earlier one was written by dashctl. An object dashctl never wrote is no
 * conflict (apply takes it over), nor is one whose server keeps no managers (a Perses server).
 */
export async function conflictOf(api: ApiClient, path: string, version: number): Promise<string | undefined> {
  const res = await api.request<ManagerEntry[]>('GET', `${path}/managers`);
  if (res.status !== 200 || !Array.isArray(res.body)) return undefined;
  const current = res.body.find((e) => e.version === version) ?? res.body[0];
  const mine = res.body.find((e) => e.manager === FIELD_MANAGER);
  if (!current || !mine || current.manager === FIELD_MANAGER) return undefined;
  return (
    `changed by ${current.updatedBy} through ${current.manager} at ${current.updatedAt} (version ${current.version}) ` +
    `since dashctl applied version ${mine.version} at ${mine.updatedAt}; put that change into the manifest, or apply with --force-conflicts to overwrite it`
  );
}
