/**
 * `text` without the characters of `chars` at its start and at its end: what `/^[c]+|[c]+$/g` and
 * `/[c]+$/` replaced with '' do, in linear time. Those expressions try a match at every position
 * and scan the run of `c` that follows, so a long run not at the end (`"a" + "/".repeat(n) + "b"`)
 * costs n² steps: a few megabytes of it held the event loop for minutes.
 */
export function trimRuns(text: string, chars: string, ends: { start?: boolean; end?: boolean } = {}): string {
  let from = 0;
  let to = text.length;
  if (ends.start !== false) while (from < to && chars.includes(text[from])) from++;
  if (ends.end !== false) while (to > from && chars.includes(text[to - 1])) to--;
  return from === 0 && to === text.length ? text : text.slice(from, to);
}
