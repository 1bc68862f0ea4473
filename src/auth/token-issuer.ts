import { isObj } from '../lib/is-obj.js';

/**
 * The `iss` claim of a JWT, read without verifying anything: only to pick the identity provider
 * whose keys then verify the token. Undefined for anything that is not a JWS compact token with a
 * JSON object payload.
 */
export function unverifiedIssuer(token: string): unknown {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    return isObj(claims) ? claims.iss : undefined;
  } catch {
    return undefined;
  }
}
