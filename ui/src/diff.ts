import { editScript } from '../../cli/unified-diff';

export interface DiffRow {
  type: 'same' | 'removed' | 'added' | 'changed';
  left?: { no: number; text: string };
  right?: { no: number; text: string };
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
