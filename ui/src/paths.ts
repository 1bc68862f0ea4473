import { isNode, parseDocument, type Document } from 'yaml';

/** `spec.layouts[0].spec.items[1].content.$ref` or `spec.panels["a.b"].x` -> its keys and indexes. */
export function parsePath(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  const re = /\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\.?([^.[\]]+)/g;
  for (let m = re.exec(path); m !== null; m = re.exec(path)) {
    if (m[1] !== undefined) out.push(Number(m[1]));
    else if (m[2] !== undefined) out.push(JSON.parse(m[2]) as string);
    else if (m[3] !== undefined && m[3] !== '(root)') out.push(m[3]);
  }
  return out;
}

/**
 * The 1-based line of the text (YAML, or JSON, which is YAML) where the value at `path` is, or
 * of its nearest parent that exists (a missing field is reported at the object that lacks it).
 */
export function lineOfPath(text: string, path: string, doc?: Document): number | undefined {
  const parsed = doc ?? parseDocument(text);
  const segments = parsePath(path);
  for (let n = segments.length; n >= 0; n--) {
    const node = n === 0 ? parsed.contents : parsed.getIn(segments.slice(0, n), true);
    if (isNode(node) && node.range) {
      // for a key's value, point at the key's line when the value starts on a later line
      const offset = n > 0 ? (keyOffset(parsed, segments.slice(0, n)) ?? node.range[0]) : node.range[0];
      return lineAt(text, offset);
    }
  }
  return undefined;
}

function keyOffset(doc: Document, segments: (string | number)[]): number | undefined {
  const parent = segments.length === 1 ? doc.contents : doc.getIn(segments.slice(0, -1), true);
  const last = segments[segments.length - 1];
  const items = (parent as { items?: { key?: unknown }[] } | null)?.items;
  if (!items || typeof last !== 'string') return undefined;
  const pair = items.find((p) => isNode(p.key) && (p.key as { value?: unknown }).value === last);
  return isNode(pair?.key) ? pair.key.range?.[0] : undefined;
}

export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
