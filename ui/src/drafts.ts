// Unsaved edits kept in the tab (sessionStorage) while they are made: a page left because the
// session ended (an external provider's sign-in, "Go to the sign-in page"), reloaded or replaced
// by a newer version offers them back, to the same user, with the version they were made to.

const PREFIX = 'dashplane.draft:';

/** An unsaved edit: what it is, the version it was made to, when, by whom. */
export interface Draft<T> {
  value: T;
  /** The version of the object the edit started from (-1: a new object). */
  version: number;
  savedAt: string;
  /** The signed-in user (undefined with auth off): another user is never offered it. */
  user?: string;
}

/** The key of an object's draft in one editor: `dashboard`, `editor`, `form`. */
export function draftKey(editor: string, kind: string, project: string | undefined, name: string): string {
  return `${PREFIX}${editor}:${kind}/${project ?? ''}/${name}`;
}

export function keepDraft<T>(key: string, value: T, version: number, user: string | undefined): void {
  try {
    sessionStorage.setItem(
      key,
      JSON.stringify({ value, version, savedAt: new Date().toISOString(), ...(user ? { user } : {}) } satisfies Draft<T>),
    );
  } catch {
    // storage full or disabled: the edit lives in the page only
  }
}

/** The draft kept under `key` for `user`, if any. */
export function readDraft<T>(key: string, user: string | undefined): Draft<T> | undefined {
  try {
    const text = sessionStorage.getItem(key);
    if (!text) return undefined;
    const draft = JSON.parse(text) as Draft<T>;
    return draft.user === user ? draft : undefined;
  } catch {
    return undefined;
  }
}

export function dropDraft(key: string): void {
  try {
    sessionStorage.removeItem(key);
  } catch {
    // nothing kept
  }
}

/** "unsaved changes from 3 min ago, made to version 4" and what restoring them onto `current` means. */
export function draftWords(draft: Draft<unknown>, current: number | undefined, ago: (iso: string) => string): string {
  const made = draft.version < 0 ? '' : `, made to version ${draft.version}`;
  const since = current !== undefined && draft.version >= 0 && current !== draft.version ? `; version ${current} has been saved since` : '';
  return `You have unsaved changes from ${ago(draft.savedAt)}${made}, kept when this page was left${since}.`;
}
