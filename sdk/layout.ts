/**
 * The two rules the dashboard builder applies for you, shared with `dashctl generate` (which
 * leaves out what they would compute anyway): panel keys derived from titles, and panels flowed
 * into rows of a grid 24 columns wide.
 */

/** The width of the Perses grid, in columns. */
export const GRID_COLUMNS = 24;

/** `'CPU usage (%)'` -> `'cpu_usage'`: the key a panel gets from its title; `'panel'` without one. */
export function keyFromTitle(title: string | undefined): string {
  const slug = (title ?? '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
  return slug || 'panel';
}

/** `base`, or `base_2`, `base_3`... : the first not in `used` (which it joins). */
export function uniqueKey(base: string, used: Set<string>): string {
  let key = base;
  for (let n = 2; used.has(key); n++) key = `${base}_${n}`;
  used.add(key);
  return key;
}

/** A panel's place on the grid. */
export interface Cell {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Places boxes left to right, starting a new row when the next one does not fit in 24 columns;
 * a row is as high as its highest box.
 */
export function flow(sizes: readonly { width: number; height: number }[]): Cell[] {
  let x = 0;
  let y = 0;
  let rowHeight = 0;
  return sizes.map(({ width, height }) => {
    if (x > 0 && x + width > GRID_COLUMNS) {
      x = 0;
      y += rowHeight;
      rowHeight = 0;
    }
    const cell = { x, y, width, height };
    x += width;
    rowHeight = Math.max(rowHeight, height);
    return cell;
  });
}

/** The width of a panel in a row of `columns` panels. */
export const widthFor = (columns: number): number => Math.floor(GRID_COLUMNS / columns);
