/** One line of an edit script. */
type Op = { op: ' ' | '-' | '+'; line: string };

/**
 * A unified diff (`--- a`, `+++ b`, `@@ -l,n +l,n @@` hunks with `context` lines around each
 * change) of two texts, line by line; an empty string when they are equal. Myers' O(ND)
 * algorithm, so two large dashboards that differ in a few lines are compared quickly.
 */
export function unifiedDiff(before: string, after: string, labels: { from: string; to: string }, context = 3): string {
  if (before === after) return '';
  const a = splitLines(before);
  const b = splitLines(after);
  const ops = editScript(a, b);
  const hunks: string[] = [];
  let i = 0;
  while (i < ops.length) {
    if (ops[i].op === ' ') {
      i++;
      continue;
    }
    // A hunk: back up `context` lines, then extend while changes are within 2*context lines.
    let start = i;
    let back = 0;
    while (start > 0 && back < context && ops[start - 1].op === ' ') {
      start--;
      back++;
    }
    let end = i;
    for (;;) {
      while (end < ops.length && ops[end].op !== ' ') end++;
      let same = 0;
      while (end + same < ops.length && ops[end + same].op === ' ') same++;
      if (end + same < ops.length && same <= 2 * context) {
        end += same;
        continue;
      }
      end += Math.min(same, context);
      break;
    }
    hunks.push(hunk(ops, start, end));
    i = end;
  }
  return `${[`--- ${labels.from}`, `+++ ${labels.to}`, ...hunks].join('\n')}\n`;
}

function hunk(ops: Op[], start: number, end: number): string {
  let aLine = 1;
  let bLine = 1;
  for (let k = 0; k < start; k++) {
    if (ops[k].op !== '+') aLine++;
    if (ops[k].op !== '-') bLine++;
  }
  const body = ops.slice(start, end);
  const aCount = body.filter((o) => o.op !== '+').length;
  const bCount = body.filter((o) => o.op !== '-').length;
  const range = (line: number, count: number) => (count === 0 ? `${line - 1},0` : count === 1 ? `${line}` : `${line},${count}`);
  return [`@@ -${range(aLine, aCount)} +${range(bLine, bCount)} @@`, ...body.map((o) => o.op + o.line)].join('\n');
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Beyond this many changed lines, a plain "replace everything" script is good enough. */
const MAX_EDIT_DISTANCE = 4000;

/** Shortest edit script from a to b (Myers 1986; the trace keeps only the live diagonals of each step). */
export function editScript(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const replaceAll = (): Op[] => [...a.map((line) => ({ op: '-' as const, line })), ...b.map((line) => ({ op: '+' as const, line }))];
  if (n === 0 || m === 0) return replaceAll();
  const max = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let D = -1;
  for (let d = 0; d <= max && D < 0; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) D = d;
    }
    trace.push(v.slice(offset - d, offset + d + 1));
  }
  if (D < 0) return replaceAll();
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = D; d > 0; d--) {
    const prev = trace[d - 1];
    const at = (k: number) => prev[k + d - 1];
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    const midX = down ? prevX : prevX + 1;
    const midY = down ? prevY + 1 : prevY;
    while (x > midX && y > midY) {
      ops.push({ op: ' ', line: a[x - 1] });
      x--;
      y--;
    }
    if (down) ops.push({ op: '+', line: b[y - 1] });
    else ops.push({ op: '-', line: a[x - 1] });
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    ops.push({ op: ' ', line: a[x - 1] });
    x--;
    y--;
  }
  return ops.reverse();
}

/** A unified diff coloured for a terminal: headers bold, removals red, additions green, hunks cyan. */
export function colourDiff(text: string, paint: (colour: 'bold' | 'red' | 'green' | 'cyan', s: string) => string): string {
  return text
    .split('\n')
    .map((l) =>
      l.startsWith('+++') || l.startsWith('---')
        ? paint('bold', l)
        : l.startsWith('+')
          ? paint('green', l)
          : l.startsWith('-')
            ? paint('red', l)
            : l.startsWith('@@')
              ? paint('cyan', l)
              : l,
    )
    .join('\n');
}
