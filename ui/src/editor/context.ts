// Where the cursor is in a YAML (block style) or JSON text: the path of the object or array it
// is in, and whether a key or a value is being typed. Tolerant: it works on unfinished text.

export type Segment = string | number;

export interface CursorContext {
  /** Path of the object (or array) the cursor is inside. */
  parent: Segment[];
  /** Typing a key of `parent` (else a value of `key`). */
  atKey: boolean;
  /** The key (or array index) whose value is being typed (value position). */
  key?: Segment | undefined;
  /** What is typed so far of the key or value, and where it starts. */
  prefix: string;
  from: number;
  /** JSON: the key or value is inside quotes already. */
  quoted?: boolean;
}

interface LineInfo {
  /** leading spaces */
  sp: number;
  /** number of "- " sequence markers after them */
  dashes: number;
  /** column of the key (after the markers) */
  col: number;
  /** the key, when the line is `key: ...` */
  key?: string;
  /** what follows the colon */
  rest?: string;
  blank: boolean;
}

function lineInfo(line: string): LineInfo {
  const m = /^( *)((?:- +)*)(.*)$/.exec(line)!;
  const sp = m[1].length;
  const dashes = (m[2].match(/-/g) ?? []).length;
  const col = sp + m[2].length;
  const content = m[3];
  if (content.trim() === '' || content.trimStart().startsWith('#')) return { sp, dashes, col, blank: dashes === 0 };
  const kv = /^("(?:[^"\\]|\\.)*"|'[^']*'|[^:#'"][^:#]*?)\s*:(?:\s+(.*)|$)/.exec(content);
  if (!kv) return { sp, dashes, col, blank: false };
  return { sp, dashes, col, key: unquote(kv[1].trim()), rest: (kv[2] ?? '').trim(), blank: false };
}

function unquote(k: string): string {
  if (k.startsWith('"')) {
    try {
      return JSON.parse(k) as string;
    } catch {
      return k.slice(1, -1);
    }
  }
  return k.startsWith("'") ? k.slice(1, -1).replace(/''/g, "'") : k;
}

/** The index of the sequence item starting at line `i` (dash at column `sp`): earlier siblings counted. */
function itemIndex(lines: LineInfo[], i: number, sp: number): number {
  let n = 0;
  for (let j = i - 1; j >= 0; j--) {
    const l = lines[j];
    if (l.blank) continue;
    if (l.dashes > 0 && l.sp === sp) n++;
    else if (l.col < sp || (l.dashes > 0 && l.sp < sp)) break;
  }
  return n;
}

/** The path of the container whose keys start at column `col`, looking up from line `i` (exclusive). */
function parentPath(lines: LineInfo[], i: number, col: number): Segment[] {
  const out: Segment[] = [];
  for (let j = i - 1; j >= 0 && col > 0; j--) {
    const l = lines[j];
    if (l.blank) continue;
    if (l.key !== undefined && l.col < col) {
      out.unshift(l.key);
      col = l.col;
      if (l.dashes > 0) {
        out.unshift(itemIndex(lines, j, l.sp));
        col = l.sp;
      }
    } else if (l.dashes > 0 && l.sp < col) {
      out.unshift(itemIndex(lines, j, l.sp));
      col = l.sp;
    }
  }
  return out;
}

/** The cursor's context in block YAML. */
export function yamlContext(text: string, pos: number): CursorContext {
  const lineStart = text.lastIndexOf('\n', pos - 1) + 1;
  const before = text.slice(lineStart, pos);
  const lines = text.slice(0, lineStart).split('\n').slice(0, -1).map(lineInfo);
  const cur = /^( *)((?:- +)*)(.*)$/.exec(before)!;
  const sp = cur[1].length;
  const dashCount = (cur[2].match(/-/g) ?? []).length;
  const col = sp + cur[2].length;
  const content = cur[3];
  let parent = parentPath(lines, lines.length, dashCount > 0 ? sp : col);
  if (dashCount > 0) {
    const all = [...lines, lineInfo(before)];
    parent = [...parent, itemIndex(all, all.length - 1, sp)];
  }
  const kv = /^("(?:[^"\\]|\\.)*"|'[^']*'|[^:#'"][^:#]*?)\s*:\s*(.*)$/.exec(content);
  if (kv) {
    const prefix = kv[2];
    return { parent, atKey: false, key: unquote(kv[1].trim()), prefix, from: pos - prefix.length };
  }
  return { parent, atKey: true, prefix: content, from: pos - content.length };
}

interface Frame {
  type: 'object' | 'array';
  key?: string | undefined;
  index: number;
  /** object: the next string is a key */
  expectKey: boolean;
}

/** The cursor's context in JSON, scanning from the start (unfinished text is fine). */
export function jsonContext(text: string, pos: number): CursorContext {
  const stack: Frame[] = [];
  let lastString: string | undefined;
  let i = 0;
  let inString: { start: number } | undefined;
  while (i < pos) {
    const c = text[i];
    if (inString) {
      if (c === '\\') {
        i += 2;
        continue;
      }
      if (c === '"') {
        lastString = JSON.parse(text.slice(inString.start, i + 1).replace(/\n/g, '\\n')) as string;
        inString = undefined;
      }
      i++;
      continue;
    }
    const top = stack[stack.length - 1];
    if (c === '"') inString = { start: i };
    else if (c === '{' || c === '[') {
      stack.push({ type: c === '{' ? 'object' : 'array', index: 0, expectKey: c === '{' });
    } else if (c === '}' || c === ']') stack.pop();
    else if (c === ':' && top?.type === 'object') {
      top.key = lastString;
      top.expectKey = false;
    } else if (c === ',' && top) {
      if (top.type === 'object') top.expectKey = true;
      else top.index++;
    }
    i++;
  }
  // the path of the innermost container: each enclosing one's current key or index
  const parent: Segment[] = stack.slice(0, -1).map((f) => (f.type === 'object' ? (f.key ?? '') : f.index));
  const top = stack[stack.length - 1];
  const typed = inString ? text.slice(inString.start + 1, pos) : (/[\w.-]*$/.exec(text.slice(0, pos))?.[0] ?? '');
  // inside quotes, what is typed starts after the opening quote
  const from = inString ? inString.start + 1 : pos - typed.length;
  if (!top) return { parent: [], atKey: false, prefix: typed, from };
  if (top.type === 'array') return { parent, atKey: false, key: top.index, prefix: typed, from, quoted: !!inString };
  if (top.expectKey) return { parent, atKey: true, prefix: typed, from, quoted: !!inString };
  return { parent, atKey: false, key: top.key, prefix: typed, from, quoted: !!inString };
}
