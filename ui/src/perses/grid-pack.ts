import { compact, correctBounds } from 'react-grid-layout/build/utils';
import type { GridBox } from '../minimal-save';

/**
 * How Perses' grid shows one group's items: react-grid-layout's own bounds correction and
 * vertical packing at the 24 columns of its `sm` layout (what `Responsive` does to the layout
 * Perses gives it, and what Perses then keeps on its first layout change).
 */
// GRID_LAYOUT_COLS.sm of @perses-dev/dashboards 0.52 (not exported from its index)
const cols = 24;

export function packGrid(items: GridBox[]): GridBox[] {
  return compact(
    correctBounds(
      items.map((b) => ({ ...b })),
      { cols },
    ),
    'vertical',
    cols,
  ).map(({ i, x, y, w, h }) => ({ i, x, y, w, h }));
}
