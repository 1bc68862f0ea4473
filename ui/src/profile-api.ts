// The caller's profile (recently viewed, starred, preferences) and the search across projects:
// server routes in src/api/profile-routes.ts.
import { call, enc, getJson } from './api';

/** An object a profile or a search result points at. */
export interface ObjectRef {
  kind: string;
  /** The kind's path segment (`dashboards`), sent by the server. */
  plural?: string;
  project?: string;
  name: string;
  /** `spec.display.name` when the object has one. */
  title?: string;
  /** When it was viewed or starred. */
  at?: string;
}

export interface Profile {
  recent: ObjectRef[];
  starred: ObjectRef[];
  preferences: Record<string, string>;
}

export interface SearchHit extends ObjectRef {
  plural: string;
  tags?: string[];
  /** Where a word matched when not in the name or title. */
  match?: { path: string; text: string };
}

const refBody = (r: ObjectRef) => ({ kind: r.kind, ...(r.project ? { project: r.project } : {}), name: r.name });

export const getProfile = () => getJson<Profile>('/api/v1/user/profile');

export async function recordView(r: ObjectRef): Promise<void> {
  await call('POST', '/api/v1/user/profile/recent', refBody(r));
}

export async function setStarred(r: ObjectRef, starred: boolean): Promise<Profile> {
  if (starred) return (await call('POST', '/api/v1/user/profile/stars', refBody(r))).json() as Promise<Profile>;
  const q = new URLSearchParams(refBody(r) as Record<string, string>);
  return (await call('DELETE', `/api/v1/user/profile/stars?${q}`)).json() as Promise<Profile>;
}

export async function setPreferences(prefs: Record<string, string | null>): Promise<Profile> {
  return (await call('PUT', '/api/v1/user/profile/preferences', prefs)).json() as Promise<Profile>;
}

export const search = (query: string, limit = 20) => getJson<SearchHit[]>(`/api/v1/search?query=${enc(query)}&limit=${limit}`);
