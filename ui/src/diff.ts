export interface DiffRow {
  type: 'same' | 'removed' | 'added' | 'changed';
  left?: { no: number; text: string };
  right?: { no: number; text: string };
}

/**
 * A side-by-side line diff: common prefix and suffix are skipped, the middle is a longest common
 * subsequence; a removed run next to an added run is shown as changed lines facing each other.
 */
export function sideBySide(a: string[], b: string[]): DiffRow[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ops = lcsOps(a.slice(start, endA), b.slice(start, endB));
  const rows: DiffRow[] = [];
  for (let i = 0; i < start; i++) rows.push({ type: 'same', left: { no: i + 1, text: a[i] }, right: { no: i + 1, text: b[i] } });
  let i = start;
  let j = start;
  let removed: DiffRow['left'][] = [];
  let added: DiffRow['right'][] = [];
  const flush = () => {
    const n = Math.max(removed.length, added.length);
    for (let k = 0; k < n; k++) {
      const left = removed[k];
      const right = added[k];
      rows.push({ type: left && right ? 'changed' : left ? 'removed' : 'added', left, right });
    }
    removed = [];
    added = [];
  };
  for (const op of ops) {
    if (op === '=') {
      flush();
      rows.push({ type: 'same', left: { no: i + 1, text: a[i] }, right: { no: j + 1, text: b[j] } });
      i++;
      j++;
    } else if (op === '-') {
      removed.push({ no: i + 1, text: a[i] });
      i++;
    } else {
      added.push({ no: j + 1, text: b[j] });
      j++;
    }
  }
  flush();
  for (let k = endA; k < a.length; k++, j++) rows.push({ type: 'same', left: { no: k + 1, text: a[k] }, right: { no: j + 1, text: b[j] } });
  return rows;
}

function lcsOps(a: string[], b: string[]): ('=' | '-' | '+')[] {
  const n = a.length;
  const m = b.length;
  if (n === 0) return b.map(() => '+');
  if (m === 0) return a.map(() => '-');
  // lengths of the LCS of a[i..] and b[j..]
  const w = m + 1;
  const table = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * w + j] = a[i] === b[j] ? table[(i + 1) * w + j + 1] + 1 : Math.max(table[(i + 1) * w + j], table[i * w + j + 1]);
    }
  }
  const ops: ('=' | '-' | '+')[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      ops.push('=');
      i++;
      j++;
    } else if (table[(i + 1) * w + j] >= table[i * w + j + 1]) {
      ops.push('-');
      i++;
    } else {
      ops.push('+');
      j++;
    }
  }
  while (i++ < n) ops.push('-');
  while (j++ < m) ops.push('+');
  return ops;
}
