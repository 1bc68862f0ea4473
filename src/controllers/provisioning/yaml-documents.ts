/** One YAML document of a file, as text, and the line (1-based) of the file where it starts. */
export interface YamlPiece {
  text: string;
  line: number;
}

/** `---` or `...` at the start of a line, alone or followed by a space: YAML's document markers. */
const MARKER = /^(---|\.\.\.)(?:[ \t]|$)/;
/** Lines that hold no content: blank, comments, directives (`%YAML 1.2`). */
const EMPTY = /^(?:[ \t]*(?:#.*)?|%.*)$/;

/**
 * Splits a YAML stream into its documents, each given alone to the server's one-document body
 * parser. YAML forbids a document's content from holding a line that starts with `---` or `...`
 * followed by a space or the end of the line (not in a block scalar, not in a quoted one), so
 * such a line always starts (`---`) or ends (`...`) a document. Pieces holding no content
 * (comments, blank lines, directives) are dropped; directives and comments before a `---` stay
 * with the document that marker starts.
 */
export function splitYamlDocuments(text: string): YamlPiece[] {
  const lines = text.split(/\r?\n/);
  const pieces: YamlPiece[] = [];
  let start = 0;
  /** Whether the current piece holds content, and whether a `---` opened it. */
  let hasContent = false;
  let opened = false;
  const close = (end: number) => {
    if (hasContent) pieces.push({ text: lines.slice(start, end).join('\n'), line: start + 1 });
    hasContent = false;
    opened = false;
  };
  for (let i = 0; i < lines.length; i++) {
    const m = MARKER.exec(lines[i]);
    if (m?.[1] === '---') {
      // a document before this marker ends here; an empty one opened by a marker is dropped; comments and directives lead the next one
      if (hasContent || opened) {
        close(i);
        start = i;
      }
      const rest = lines[i].slice(3).trim();
      hasContent = rest !== '' && !rest.startsWith('#');
      opened = true;
    } else if (m?.[1] === '...') {
      close(i + 1);
      start = i + 1;
    } else if (!EMPTY.test(lines[i])) {
      hasContent = true;
    }
  }
  close(lines.length);
  return pieces;
}
