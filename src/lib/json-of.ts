/**
 * `JSON.stringify(obj)`, made once per object and shared: a created dashboard's 10 KB of JSON is
 * what the store writes, what the response sends and what every watch stream's event carries.
 * The objects are never changed once written (stores and watchers treat them as read-only).
 */
const made = new WeakMap<object, string>();

export function jsonOf(obj: object): string {
  let text = made.get(obj);
  if (text === undefined) {
    text = JSON.stringify(obj);
    made.set(obj, text);
  }
  return text;
}
