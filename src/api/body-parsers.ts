import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createGunzip, createInflate, createBrotliDecompress } from 'node:zlib';
import { ApiError, badRequest } from '../errors.js';
import { jsonTextDepthExceeds, NestingError, parseYamlDocuments } from '../lib/nesting.js';
import { assertSafeValue } from './hygiene.js';

const JSON_TYPES = /^application\/(?:[\w.-]+\+)?json\s*(?:;.*)?$/i;
const YAML_TYPES = /^(?:application|text)\/(?:x-)?yaml\s*(?:;.*)?$/i;

/**
 * Request bodies: JSON, or YAML [beyond]; anything else is a 415 (which also stops form and
 * text/plain cross-site posts). Compressed bodies are inflated with the size limit applied to the
 * inflated bytes (413). Every parsed body passes `assertSafeValue`.
 */
export function registerBodyParsers(app: FastifyInstance, maxDepth: number): void {
  app.removeAllContentTypeParsers();
  app.addHook('preParsing', async (request, _reply, payload) => {
    if (request.method === 'GET' || request.method === 'HEAD') return payload; // no body to check
    if ((request.routeOptions.config as { proxy?: boolean } | undefined)?.proxy) return payload; // streamed upstream untouched
    checkCharset(request);
    const encoding = String(request.headers['content-encoding'] ?? 'identity').toLowerCase();
    const inflate = { gzip: createGunzip, 'x-gzip': createGunzip, deflate: createInflate, br: createBrotliDecompress }[encoding];
    if (encoding === 'identity') return payload;
    if (!inflate) throw new ApiError('UnsupportedMediaType', `Content-Encoding "${encoding}" is not supported; send the body uncompressed or with gzip, deflate or br`);
    const out = payload.pipe(inflate());
    (out as unknown as { receivedEncodedLength: number }).receivedEncodedLength = 0;
    payload.on('data', (chunk: Buffer) => ((out as unknown as { receivedEncodedLength: number }).receivedEncodedLength += chunk.length));
    return out;
  });
  // An empty body is no body, whatever its Content-Type: the Perses UI sends
  // `Content-Type: application/json` with every DELETE (and a restore takes no body either).
  // A route that needs a body says so itself, as when no Content-Type is sent.
  app.addContentTypeParser(JSON_TYPES, { parseAs: 'string' }, (_req, text, done) => {
    if ((text as unknown as string).trim() === '') return done(null, undefined);
    try {
      done(null, parseJson(text as unknown as string, maxDepth));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
  app.addContentTypeParser(YAML_TYPES, { parseAs: 'string' }, (_req, text, done) => {
    if ((text as unknown as string).trim() === '') return done(null, undefined);
    try {
      done(null, parseYamlBody(text as unknown as string, maxDepth));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
}

function checkCharset(request: FastifyRequest): void {
  const type = request.headers['content-type'];
  const charset = type ? /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(type)?.[1] : undefined;
  if (charset && !/^utf-?8$/i.test(charset)) {
    throw new ApiError('UnsupportedMediaType', `charset "${charset}" is not supported; send UTF-8`);
  }
}

export function parseJson(text: string, maxDepth: number): unknown {
  if (text.trim() === '') throw badRequest('the request body is empty; send a JSON object');
  if (jsonTextDepthExceeds(text, maxDepth)) throw tooDeep(maxDepth);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    // V8's message quotes a piece of the body, which may be a password: keep only the position.
    const where = /at position \d+(?: \(line \d+ column \d+\))?/.exec((e as Error).message)?.[0];
    throw badRequest(`the request body is not valid JSON${where ? ` (${where})` : ''}; check quotes, commas and brackets`);
  }
  assertSafeValue(value, maxDepth);
  return value;
}

/**
 * One YAML document, core schema only (no custom tags), duplicate keys and alias bombs rejected;
 * nesting is bounded while parsing, before the recursive composer sees the text.
 */
export function parseYamlBody(text: string, maxDepth: number): unknown {
  if (text.trim() === '') throw badRequest('the request body is empty; send a YAML mapping');
  let docs;
  try {
    docs = parseYamlDocuments(text, maxDepth, { schema: 'core', uniqueKeys: true });
  } catch (e) {
    if (e instanceof NestingError) throw tooDeep(maxDepth);
    throw badRequest(`the request body is not valid YAML: ${(e as Error).message}`);
  }
  if (!Array.isArray(docs)) throw badRequest('the request body is not valid YAML');
  if (docs.length !== 1) throw badRequest(`the request body holds ${docs.length} YAML documents; send exactly one (dashctl apply splits files)`);
  const doc = docs[0];
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem) throw badRequest(`the request body is not valid YAML: ${problem.message.split('\n')[0]}`);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw badRequest(`the request body is not valid YAML: ${(e as Error).message}`);
  }
  assertSafeValue(value, maxDepth);
  return value;
}

function tooDeep(maxDepth: number): ApiError {
  return badRequest(`the body is nested more than ${maxDepth} levels deep (http.max_json_depth); flatten it`);
}
