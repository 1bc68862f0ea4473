/**
 * Grafana colour names (its classic palette, five shades per hue) and CSS colours as the
 * hexadecimal codes Perses schemas ask for.
 */
const SHADES = ['super-light-', 'light-', '', 'semi-dark-', 'dark-'];
const PALETTE: Record<string, string[]> = {
  red: ['#ffa6b0', '#ff7383', '#f2495c', '#e02f44', '#c4162a'],
  orange: ['#ffcb7d', '#ffb357', '#ff9830', '#fa6400', '#e55400'],
  yellow: ['#fff899', '#ffee52', '#fade2a', '#f2cc0c', '#e0b400'],
  green: ['#c8f2c2', '#96d98d', '#73bf69', '#56a64b', '#37872d'],
  blue: ['#c0d8ff', '#8ab8ff', '#5794f2', '#3274d9', '#1f60c4'],
  purple: ['#deb6f2', '#ca95e5', '#b877d9', '#a352cc', '#8f3bb8'],
};

/** A few CSS names Grafana dashboards use besides the palette. */
const CSS: Record<string, string> = {
  white: '#ffffff',
  black: '#000000',
  gray: '#808080',
  grey: '#808080',
  text: '#ccccdc',
};

const NAMED: Record<string, string> = { ...CSS };
for (const [hue, codes] of Object.entries(PALETTE)) SHADES.forEach((shade, i) => (NAMED[`${shade}${hue}`] = codes[i]));

const hex2 = (n: number) =>
  Math.max(0, Math.min(255, Math.round(n)))
    .toString(16)
    .padStart(2, '0');

/**
 * `#rgb`/`#rrggbb` as given, a Grafana palette name as its code, `rgb()`/`rgba()` as `#rrggbb`
 * (the alpha is dropped); undefined for anything else (`transparent`, unknown names).
 */
export function toHexColor(color: unknown): string | undefined {
  if (typeof color !== 'string') return undefined;
  const c = color.trim();
  if (/^#(?:[0-9a-fA-F]{3}){1,2}$/.test(c)) return c;
  if (/^#[0-9a-fA-F]{8}$/.test(c)) return c.slice(0, 7);
  const named = NAMED[c.toLowerCase()];
  if (named) return named;
  const rgb = /^rgba?\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*(?:,\s*[\d.]+\s*)?\)$/i.exec(c);
  return rgb ? `#${hex2(+rgb[1])}${hex2(+rgb[2])}${hex2(+rgb[3])}` : undefined;
}
