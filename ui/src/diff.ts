import { editScript } from '../../src/lib/unified-diff';

export interface DiffRow {
  type: 'same' | 'removed' | 'added' | 'changed';
  left?: { no: number; text: string } | undefined;
  right?: { no: number; text: string } | undefined;
}

/**
 * A side-by-side line diff from the shortest edit script dashctl's diff uses (Myers); a removed
 * run next to an added run is shown as changed lines facing each other.
 */
export function sideBySide(a: string[], b: string[]): DiffRow[] {
  const rows: DiffRow[] = [];
  let i = 0;
  let j = 0;
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
  for (const { op } of editScript(a, b)) {
    if (op === ' ') {
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
  return rows;
}

/** A run of unchanged lines hidden between changes, or a row shown. */
export type DiffItem = { type: 'row'; row: DiffRow } | { type: 'fold'; rows: DiffRow[]; key: number };

/**
 * The rows with every run of unchanged lines longer than twice `context` folded, keeping
 * `context` lines of it next to each change (as `diff -U`).
 */
export function folded(rows: DiffRow[], context = 3): DiffItem[] {
  const out: DiffItem[] = [];
  let i = 0;
  while (i < rows.length) {
    if (rows[i].type !== 'same') {
      out.push({ type: 'row', row: rows[i++] });
      continue;
    }
    let j = i;
    while (j < rows.length && rows[j].type === 'same') j++;
    const keepBefore = i === 0 ? 0 : context;
    const keepAfter = j === rows.length ? 0 : context;
    // fold only what hides a few lines at least
    if (j - i - keepBefore - keepAfter >= 4) {
      for (let k = i; k < i + keepBefore; k++) out.push({ type: 'row', row: rows[k] });
      out.push({ type: 'fold', rows: rows.slice(i + keepBefore, j - keepAfter), key: i + keepBefore });
      for (let k = j - keepAfter; k < j; k++) out.push({ type: 'row', row: rows[k] });
    } else {
      for (let k = i; k < j; k++) out.push({ type: 'row', row: rows[k] });
    }
    i = j;
  }
  return out;
}

/** Changes (runs of changed lines) and the lines removed and added. */
export function diffStats(rows: DiffRow[]): { changes: number; removed: number; added: number } {
  let changes = 0;
  let removed = 0;
  let added = 0;
  rows.forEach((r, i) => {
    if (r.type === 'same') return;
    if (i === 0 || rows[i - 1].type === 'same') changes++;
    if (r.left) removed++;
    if (r.right) added++;
  });
  return { changes, removed, added };
}
