/** A JSON object as parsed: string keys, values of any JSON type. */
export type Obj = Record<string, unknown>;

/** Whether `v` is a JSON object (not null, not an array): the one test every reader of untyped JSON uses. */
export function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
