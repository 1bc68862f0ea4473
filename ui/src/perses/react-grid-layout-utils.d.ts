// react-grid-layout (the grid of @perses-dev/dashboards) ships no types for its utilities module.
declare module 'react-grid-layout/build/utils' {
  interface LayoutItem {
    i: string;
    x: number;
    y: number;
    w: number;
    h: number;
  }
  export function correctBounds<T extends LayoutItem>(layout: T[], bounds: { cols: number }): T[];
  export function compact<T extends LayoutItem>(
    layout: T[],
    compactType: 'vertical' | 'horizontal' | null,
    cols: number,
    allowOverlap?: boolean,
  ): T[];
}
