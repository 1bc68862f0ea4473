import type { FastifyInstance, FastifyReply, FastifyRequest, RequestPayload } from 'fastify';
import { createGunzip, createInflate, createBrotliDecompress } from 'node:zlib';
import { ApiError, badRequest } from '../errors.js';
import { type BodyLimits, scanJson } from './body-limits.js';
import { assertSafeValue } from './hygiene.js';
import type { Offload } from './offload.js';
import { yamlBodyToJson } from './yaml-body.js';

/**
 * YAML bodies up to this many characters are read on the event loop: js-yaml reads about 10 MB a
 * second at its slowest (many small values), so 64 KB take about 6 ms. Larger ones, up to the
 * 5 MB body limit (about half a second), are read in the worker thread.
 */
const INLINE_YAML_CHARS = 64 * 1024;

const JSON_TYPES = /^application\/(?:[\w.-]+\+)?json\s*(?:;.*)?$/i;
const YAML_TYPES = /^(?:application|text)\/(?:x-)?yaml\s*(?:;.*)?$/i;

/**
 * Request bodies: JSON, or YAML [beyond]; anything else is a 415 (which also stops form and
 * text/plain cross-site posts). Compressed bodies are inflated with the size limit applied to the
 * inflated bytes (413). Every body is checked against the limits before it is parsed (JSON) or
 * while it is read (YAML, which is read as the JSON it stands for, large bodies in a worker
 * thread), and every parsed body passes `assertSafeValue`.
 */
export function registerBodyParsers(app: FastifyInstance, limits: BodyLimits, offload: Offload): void {
  const tooLong = `the YAML body took longer than ${offload.limit} to read (http.worker_timeout); send it as JSON, or smaller`;
  const yamlToJson = (text: string): Promise<string> =>
    text.length <= INLINE_YAML_CHARS
      ? Promise.resolve().then(() => yamlBodyToJson(text, limits))
      : offload.run('yaml', { text, limits }, tooLong);
  app.removeAllContentTypeParsers();
  // Only on routes that take a body: a hook on every route costs each GET a promise (P1).
  const decode = async (request: FastifyRequest, _reply: FastifyReply, payload: RequestPayload) => {
    if (request.method === 'GET' || request.method === 'HEAD') return payload; // no body to check
    checkCharset(request);
    const encoding = String(request.headers['content-encoding'] ?? 'identity').toLowerCase();
    const inflate = { gzip: createGunzip, 'x-gzip': createGunzip, deflate: createInflate, br: createBrotliDecompress }[encoding];
    if (encoding === 'identity') return payload;
    if (!inflate)
      throw new ApiError(
        'UnsupportedMediaType',
        `Content-Encoding "${encoding}" is not supported; send the body uncompressed or with gzip, deflate or br`,
      );
    const out = payload.pipe(inflate());
    (out as unknown as { receivedEncodedLength: number }).receivedEncodedLength = 0;
    payload.on('data', (chunk: Buffer) => ((out as unknown as { receivedEncodedLength: number }).receivedEncodedLength += chunk.length));
    return out;
  };
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    if ((route.config as { proxy?: boolean } | undefined)?.proxy) return; // streamed upstream untouched
    if (methods.every((m) => m === 'GET' || m === 'HEAD')) return;
    route.preParsing = [decode, ...[route.preParsing ?? []].flat()];
  });
  // An empty body is no body, whatever its Content-Type: the Perses UI sends
  // `Content-Type: application/json` with every DELETE (and a restore takes no body either).
  // A route that needs a body says so itself, as when no Content-Type is sent.
  app.addContentTypeParser(JSON_TYPES, { parseAs: 'string' }, (_req, text, done) => {
    if ((text as unknown as string).trim() === '') return done(null, undefined);
    try {
      done(null, parseJson(text as unknown as string, limits));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
  app.addContentTypeParser(YAML_TYPES, { parseAs: 'string' }, (_req, text, done) => {
    if ((text as unknown as string).trim() === '') return done(null, undefined);
    yamlToJson(text as unknown as string).then(
      (json) => {
        let value: unknown;
        try {
          value = parseJson(json, limits);
        } catch (e) {
          return done(e as Error, undefined);
        }
        done(null, value);
      },
      (e: Error) => done(e, undefined),
    );
  });
}

function checkCharset(request: FastifyRequest): void {
  const type = request.headers['content-type'];
  const charset = type ? /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(type)?.[1] : undefined;
  if (charset && !/^utf-?8$/i.test(charset)) {
    throw new ApiError('UnsupportedMediaType', `charset "${charset}" is not supported; send UTF-8`);
  }
}

/** A JSON body, checked against the limits before it is parsed (so no shape of it costs more than linear time in them). */
export function parseJson(text: string, limits: BodyLimits): unknown {
  if (text.trim() === '') throw badRequest('the request body is empty; send a JSON object');
  scanJson(text, limits);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    // V8's message quotes a piece of the body, which may be a password: keep only the position.
    const where = /at position \d+(?: \(line \d+ column \d+\))?/.exec((e as Error).message)?.[0];
    throw badRequest(`the request body is not valid JSON${where ? ` (${where})` : ''}; check quotes, commas and brackets`);
  }
  assertSafeValue(value, limits.maxDepth);
  return value;
}
