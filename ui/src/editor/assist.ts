import { autocompletion, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { hoverTooltip, type EditorView } from '@codemirror/view';
import { parseDocument } from 'yaml';
import { jsonContext, yamlContext, type Segment } from './context';
import { describe, keySuggestions, valueSuggestions, type PluginSchemas, type Schema } from './schema-assist';

export interface AssistSource {
  format: 'yaml' | 'json';
  root: Schema;
  plugins: PluginSchemas;
}

/** The document as data, as far as it parses (unfinished text gives what can be read). */
function dataOf(text: string): unknown {
  try {
    return parseDocument(text, { prettyErrors: false, uniqueKeys: false }).toJS({ maxAliasCount: 100 });
  } catch {
    return undefined;
  }
}

const scalar = (v: unknown, format: 'yaml' | 'json') =>
  typeof v === 'string'
    ? format === 'json'
      ? JSON.stringify(v)
      : /^[\w./-]+$/.test(v) && !/^(true|false|null|~|\d.*)$/.test(v)
        ? v
        : JSON.stringify(v)
    : String(v);

/** Completion of keys (with their descriptions) and of enumerated values, from the kind's JSON Schema. */
export function schemaCompletion(get: () => AssistSource | undefined) {
  return autocompletion({
    activateOnTyping: true,
    override: [
      async (ctx: CompletionContext): Promise<CompletionResult | null> => {
        const src = get();
        if (!src) return null;
        const text = ctx.state.doc.toString();
        const c = src.format === 'json' ? jsonContext(text, ctx.pos) : yamlContext(text, ctx.pos);
        if (!ctx.explicit && c.prefix === '' && !c.atKey) return null;
        const data = dataOf(text);
        if (c.atKey) {
          const keys = await keySuggestions(src.root, c.parent, data, src.plugins);
          if (!keys.length) return null;
          return {
            from: c.from,
            validFor: /^[\w$.-]*$/,
            options: keys.map((k) => ({
              label: k.key,
              type: 'property',
              detail: `${k.type ?? ''}${k.required ? ' · required' : ''}`,
              ...(k.description !== undefined ? { info: k.description } : {}),
              apply: applyKey(k.key, src.format, c.quoted === true),
              boost: k.required ? 1 : 0,
            })),
          };
        }
        if (c.key === undefined) return null;
        const values = await valueSuggestions(src.root, [...c.parent, c.key], data, src.plugins);
        if (!values.length) return null;
        return {
          from: c.from,
          validFor: /^"?[\w$.-]*"?$/,
          options: values.map((v) => ({
            label: scalar(v.value, src.format),
            type: 'enum',
            ...(v.description !== undefined ? { info: v.description } : {}),
          })),
        };
      },
    ],
  });
}

/** Inserts `key: ` (YAML) or `"key": ` (JSON; inside quotes, the closing quote is taken over). */
function applyKey(key: string, format: 'yaml' | 'json', quoted: boolean) {
  if (format === 'yaml') return `${key}: `;
  if (!quoted) return `"${key}": `;
  return (view: EditorView, _c: unknown, from: number, to: number) => {
    const closing = view.state.sliceDoc(to, to + 1) === '"' ? 1 : 0;
    const insert = `${key}": `;
    view.dispatch({ changes: { from, to: to + closing, insert }, selection: { anchor: from + insert.length } });
  };
}

/** The path of the key the position is on (or of the value it is in), if any. */
function pathAt(view: EditorView, pos: number, format: 'yaml' | 'json'): Segment[] | undefined {
  const line = view.state.doc.lineAt(pos);
  const text = view.state.doc.toString();
  if (format === 'yaml') {
    const m = /^( *(?:- +)*)("(?:[^"\\]|\\.)*"|'[^']*'|[^:#'"][^:#]*?)\s*:/.exec(line.text);
    if (!m) return undefined;
    const keyEnd = line.from + m[1].length + m[2].length;
    const c = yamlContext(text, keyEnd);
    return c.atKey ? [...c.parent, c.prefix.replace(/^["']|["']$/g, '').trim()] : undefined;
  }
  // JSON: the string under the cursor, if it is a key
  const col = pos - line.from;
  const re = /"((?:[^"\\]|\\.)*)"\s*:/g;
  for (let m = re.exec(line.text); m !== null; m = re.exec(line.text)) {
    if (col >= m.index && col <= m.index + m[0].length) {
      const c = jsonContext(text, line.from + m.index + 1);
      return [...c.parent, JSON.parse(`"${m[1]}"`) as string];
    }
  }
  return undefined;
}

/** Hovering a key shows what the schema says about it. */
export function schemaHover(get: () => AssistSource | undefined) {
  return hoverTooltip(async (view, pos) => {
    const src = get();
    if (!src) return null;
    const path = pathAt(view, pos, src.format);
    if (!path) return null;
    const text = await describe(src.root, path, dataOf(view.state.doc.toString()), src.plugins);
    if (!text) return null;
    return {
      pos,
      above: true,
      create: () => {
        const dom = document.createElement('div');
        dom.className = 'cm-schema-hover';
        dom.setAttribute('role', 'tooltip');
        const [first, ...rest] = text.split('\n');
        const head = document.createElement('strong');
        head.textContent = first;
        dom.append(head);
        for (const l of rest) {
          const p = document.createElement('div');
          p.textContent = l;
          dom.append(p);
        }
        return { dom };
      },
    };
  });
}
