import { badRequest, invalid, type ErrorDetail } from '../errors.js';
import { proxyProblems } from './proxy-block.js';
import { isObj } from '../lib/is-obj.js';

/** The methods the unsaved-datasource route may send upstream. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const EXAMPLE = 'send {"method": "GET", "spec": <datasource spec>, "body": null}';

/** The body of `POST /proxy/unsaved/...`, checked. */
export interface UnsavedRequest {
  method: string;
  /** A datasource spec `{plugin: {kind, spec}}` whose proxy block has no problem. */
  spec: { plugin?: { kind?: string; spec?: Record<string, unknown> } };
  /** The upstream request body, when there is one. */
  body?: string;
}

/**
 * Checks the whole body of an unsaved-datasource request before anything is authorized or looked
 * up: `method` one of the HTTP methods (upper case), `spec` an object, `body` a string or null
 * (none for GET and HEAD), and the proxy block of `spec.plugin.spec` without problems (a secret
 * reference that is not a valid name never reaches a permission check or a lookup).
 */
export function unsavedRequest(raw: unknown): UnsavedRequest {
  if (!isObj(raw)) throw badRequest(`the request body must be a JSON object: ${EXAMPLE}`);
  const problems: ErrorDetail[] = [];
  const { method, spec, body } = raw;
  if (typeof method !== 'string' || !METHODS.includes(method))
    problems.push({ path: 'method', message: `must be one of ${METHODS.join(', ')} (upper case)` });
  if (!isObj(spec))
    problems.push({
      path: 'spec',
      message:
        'must be an object: the datasource spec {"plugin": {"kind": ..., "spec": {"proxy": {"kind": "HTTPProxy", "spec": {"url": ...}}}}}',
    });
  if (body !== undefined && body !== null && typeof body !== 'string')
    problems.push({ path: 'body', message: 'must be a string (the upstream request body) or null' });
  else if (typeof body === 'string' && (method === 'GET' || method === 'HEAD'))
    problems.push({ path: 'body', message: `must be null for ${method}; use POST to send a body` });
  if (isObj(spec)) {
    const plugin = spec.plugin;
    if (plugin !== undefined && !isObj(plugin))
      problems.push({ path: 'spec.plugin', message: 'must be an object {"kind": ..., "spec": ...}' });
    else if (isObj(plugin)) problems.push(...proxyProblems(plugin.spec, 'spec.plugin.spec'));
  }
  if (problems.length) throw invalid(problems, 'unsaved-datasource request');
  return { method: method as string, spec: spec as UnsavedRequest['spec'], ...(typeof body === 'string' ? { body } : {}) };
}
