import type { IncomingHttpHeaders } from 'node:http';

/** The cookies Perses clients know: the access token in two halves, and the refresh token. */
export const COOKIE_PAYLOAD = 'jwtPayload';
export const COOKIE_SIGNATURE = 'jwtSignature';
export const COOKIE_REFRESH = 'jwtRefreshToken';
export const AUTH_COOKIES = [COOKIE_PAYLOAD, COOKIE_SIGNATURE, COOKIE_REFRESH];

/** name -> value of the Cookie header (first occurrence wins). */
export function parseCookies(headers: IncomingHttpHeaders): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of String(headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    const name = part.slice(0, i).trim();
    if (out.has(name)) continue;
    try {
      out.set(name, decodeURIComponent(part.slice(i + 1).trim()));
    } catch {
      // a malformed value is ignored like a missing cookie
    }
  }
  return out;
}

export interface CookieOptions {
  sameSite: 'lax' | 'strict' | 'none';
  secure: boolean;
}

/** One Set-Cookie value; maxAge 0 clears the cookie. */
export function serializeCookie(name: string, value: string, o: CookieOptions & { httpOnly: boolean; maxAge: number }): string {
  const sameSite = o.sameSite[0].toUpperCase() + o.sameSite.slice(1);
  return [
    `${name}=${encodeURIComponent(value)}`,
    'Path=/',
    `Max-Age=${o.maxAge}`,
    ...(o.maxAge === 0 ? ['Expires=Thu, 01 Jan 1970 00:00:00 GMT'] : []),
    `SameSite=${sameSite}`,
    ...(o.secure || o.sameSite === 'none' ? ['Secure'] : []),
    ...(o.httpOnly ? ['HttpOnly'] : []),
  ].join('; ');
}
