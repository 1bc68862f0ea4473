import { yamlModule } from '../src/lib/yaml-module.js';

const CODES = { red: 31, green: 32, yellow: 33, blue: 34, cyan: 36, grey: 90, bold: 1 } as const;
export type Colour = keyof typeof CODES;

/** `text` in ANSI colour when `on` (the run's `Io.colour`: a terminal, and NO_COLOR unset). */
export function paint(on: boolean, colour: Colour, text: string): string {
  if (!on) return text;
  return `\x1b[${CODES[colour]}m${text}\x1b[0m`;
}

/** Visible width (ANSI sequences do not count). */
function width(s: string): number {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\x1b\[[0-9;]*m/g, '').length;
}

/** Columns aligned with two spaces between them; the header in capitals. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ''))));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat(widths[i] - width(c))))
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

/** "45s", "3m", "2h", "5d", "1y" since an RFC 3339 instant (kubectl style); "-" when unknown. */
export function age(iso: unknown, now = Date.now()): string {
  if (typeof iso !== 'string') return '-';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '-';
  const s = Math.max(0, Math.floor((now - t) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  if (s < 365 * 86_400) return `${Math.floor(s / 86_400)}d`;
  return `${Math.floor(s / (365 * 86_400))}y`;
}

/** YAML as dashctl prints it (no line folding, so it can be applied again verbatim). */
export function toYaml(v: unknown): string {
  return yamlModule().stringify(v, { lineWidth: 0, aliasDuplicateObjects: false });
}

/** Several objects as YAML documents separated by `---`. */
export function yamlDocuments(items: unknown[]): string {
  return items.map((i) => toYaml(i)).join('---\n');
}
