/** Where a JSON text stops being JSON, and what was found there. */
interface JsonFault {
  at: number;
  found: string;
}

/**
 * The first place `text` is not JSON (RFC 8259), by a scan of its grammar: Chromium's JSON.parse
 * names neither line nor column (`Unexpected token '}', ..."panels": [} }" is not valid JSON`).
 * Undefined when it is JSON.
 */
function firstFault(text: string): JsonFault | undefined {
  let i = 0;
  const fail = (): never => {
    throw { at: i, found: i >= text.length ? '' : text[i] } satisfies JsonFault;
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const expect = (c: string) => (text[i] === c ? i++ : fail());
  const string = () => {
    expect('"');
    while (text[i] !== '"') {
      if (i >= text.length || text.charCodeAt(i) < 0x20) fail();
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) i += 4;
        else if (!'"\\/bfnrt'.includes(text[i] ?? 'x')) fail();
      }
      i++;
    }
    i++;
  };
  const value = (depth: number): void => {
    space();
    const c = text[i];
    if (c === '{' || c === '[') {
      if (depth > 500) fail();
      const close = c === '{' ? '}' : ']';
      i++;
      space();
      if (text[i] === close) return void i++;
      for (;;) {
        if (close === '}') {
          space();
          string();
          space();
          expect(':');
        }
        value(depth + 1);
        space();
        if (text[i] === close) return void i++;
        expect(',');
      }
    }
    if (c === '"') {
      string();
      return;
    }
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400))?.[0];
    if (!literal) fail();
    i += literal!.length;
  };
  try {
    value(0);
    space();
    if (i < text.length) fail();
    return undefined;
  } catch (e) {
    if (e && typeof e === 'object' && 'at' in e) return e as JsonFault;
    throw e;
  }
}

/**
 * Why `text` is not JSON, where a user can find it: `unexpected "}" at line 3, column 14`, or
 * that it ends before the JSON does. `e` is JSON.parse's error, said when the scan finds nothing.
 */
export function jsonErrorText(text: string, e: unknown): string {
  const fault = firstFault(text);
  if (!fault) return e instanceof Error ? e.message : String(e);
  const before = text.slice(0, fault.at);
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  const what =
    fault.found === '' ? 'it ends before the JSON does (a {, [ or " is not closed)' : `unexpected ${JSON.stringify(fault.found)}`;
  return `${what} at line ${line}, column ${column}`;
}

/** Whether a pasted text is meant as JSON (it opens an object or a list), rather than YAML. */
export const looksLikeJson = (text: string) => /^\s*[[{]/.test(text);
