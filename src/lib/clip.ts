/** The longest message or path an error answer carries: a message may quote a value of megabytes (COST-02). */
const MAX_TEXT = 1000;

/** A message cut to MAX_TEXT characters, saying how many more there were. */
export function clip(text: string): string {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT)}… (${text.length - MAX_TEXT} more characters)`;
}

/** A path cut to about MAX_TEXT characters in its middle: its end (the field at fault) is the part that tells most. */
export function clipPath(path: string): string {
  if (path.length <= MAX_TEXT) return path;
  const tail = Math.floor((MAX_TEXT * 2) / 3);
  return `${path.slice(0, MAX_TEXT - tail)}…(${path.length - MAX_TEXT} characters)…${path.slice(-tail)}`;
}
