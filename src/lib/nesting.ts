import type { Document, DocumentOptions, ParseOptions, SchemaOptions } from 'yaml';
import { yamlModule } from './yaml-module.js';

/**
 * Nesting limits applied before or while a parser builds anything. Parsers recurse once per
 * nesting level (the `yaml` composer, ajv, JSON.stringify): a 200 KB body of brackets nested
 * 100,000 deep exhausts the stack, and V8 may then die outright (a regular expression compiled
 * near the end of the stack aborts the process as "out of memory") instead of throwing a
 * RangeError that a `catch` could turn into a 400. So depth is bounded first, without recursion.
 */

/** The nesting limit dashctl applies to the files it reads (the server's default `http.max_json_depth`). */
export const DEFAULT_MAX_DEPTH = 100;

/** Thrown when a text nests collections deeper than allowed; nothing was built from it. */
export class NestingError extends Error {
  constructor(readonly limit: number) {
    super(`nested more than ${limit} levels deep`);
    this.name = 'NestingError';
  }
}

/** Whether JSON text nests arrays and objects more than `limit` deep (strings skipped; no parsing). */
export function jsonTextDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** The parser's stack holds the document below the collections, and may hold a scalar above them. */
const STACK_SLACK = 2;

/**
 * `parseAllDocuments` of the `yaml` package with the nesting bounded while parsing: its CST
 * parser keeps open collections on an explicit stack (no recursion), so the stack is watched
 * token by token and parsing stops with a NestingError as soon as it holds more than `maxDepth`
 * collections, before the recursive composer ever sees the text. Whatever the parser's recovery
 * from invalid text nests, the composer recurses at most as deep as that stack grew.
 * (A `key: value` inside `[...]` composes into a one-pair mapping, so the parsed value may be up
 * to twice as deep: check the value's depth afterwards for the exact limit.)
 */
export function parseYamlDocuments(
  text: string,
  maxDepth: number,
  options: ParseOptions & DocumentOptions & SchemaOptions = {},
): Document.Parsed[] {
  const { Composer, Lexer, Parser } = yamlModule();
  const parser = new Parser(options.lineCounter?.addNewLine);
  options.lineCounter?.addNewLine(0); // what Parser.parse does first
  const tokens = [];
  const limit = maxDepth + STACK_SLACK;
  for (const lexeme of new Lexer().lex(text)) {
    for (const token of parser.next(lexeme)) tokens.push(token);
    if (parser.stack.length > limit) throw new NestingError(maxDepth);
  }
  for (const token of parser.end()) tokens.push(token);
  return Array.from(new Composer(options).compose(tokens)) as Document.Parsed[];
}

/** Whether a parsed value nests arrays and objects more than `limit` deep (iterative; the value itself is level 1). */
export function valueDepthExceeds(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v))
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
