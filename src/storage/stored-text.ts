import type { Metadata, StoredText } from './store.js';

const HEAD = '{"kind":';
const METADATA = ',"metadata":';

/**
 * An envelope's JSON text with its metadata, parsing only the metadata: objects are written as
 * JSON.stringify of `{kind, metadata, spec}` in that order, so the metadata is the second member
 * and a few hundred bytes; the 10 KB spec is never parsed. Text of any other shape is parsed whole.
 */
export function storedText(json: string | Buffer): StoredText {
  if (typeof json === 'string') return { text: json, metadata: leadingMetadata(json) ?? wholeMetadata(json) };
  // of bytes, only the head is decoded first (metadata is a few hundred bytes)
  const metadata =
    (json.length > HEAD_BYTES ? leadingMetadata(json.toString('utf8', 0, HEAD_BYTES)) : undefined) ??
    storedText(json.toString('utf8')).metadata;
  return { text: json, metadata };
}

const HEAD_BYTES = 1024;

/** `t` frozen with its metadata, to be shared by every reader (the stores' caches of texts read lately). */
export function frozenText(t: StoredText): StoredText {
  Object.freeze(t.metadata);
  if (t.metadata.tags) Object.freeze(t.metadata.tags);
  return Object.freeze(t);
}

/** The metadata member's JSON text of an envelope's JSON: a slice of it when it leads (see `storedText`), else serialised from the parsed object. */
export function metadataText(json: string): string {
  return leadingMetadataSlice(json) ?? JSON.stringify(wholeMetadata(json));
}

function wholeMetadata(json: string): Metadata {
  return (JSON.parse(json) as { metadata: Metadata }).metadata;
}

/** The metadata member when it comes second, after "kind", and ends within `text`. */
function leadingMetadata(text: string): Metadata | undefined {
  const slice = leadingMetadataSlice(text);
  return slice === undefined ? undefined : (JSON.parse(slice) as Metadata);
}

function leadingMetadataSlice(text: string): string | undefined {
  if (!text.startsWith(HEAD)) return undefined;
  const kindEnd = stringEnd(text, HEAD.length);
  if (kindEnd < 0 || !text.startsWith(METADATA, kindEnd)) return undefined;
  const start = kindEnd + METADATA.length;
  const end = valueEnd(text, start);
  return end > 0 ? text.slice(start, end) : undefined;
}

/** Index just past the JSON string starting at `at` (a `"`), or -1. */
function stringEnd(text: string, at: number): number {
  if (text.charCodeAt(at) !== 0x22) return -1;
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c)
      i++; // backslash: skip the escaped character
    else if (c === 0x22) return i + 1;
  }
  return -1;
}

/** Index just past the JSON object starting at `at` (a `{`), or -1: braces counted outside strings. */
function valueEnd(text: string, at: number): number {
  if (text.charCodeAt(at) !== 0x7b) return -1;
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = stringEnd(text, i) - 1;
      if (i < 0) return -1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}
