// What the page can know about the session without asking the server (and so without a 401 in
// the console): the access token's payload is in the script-readable cookie `jwtPayload`
// (header.payload; it expires with the token), and a flag in localStorage remembers that this
// browser signed in (the refresh token itself is HttpOnly).

const FLAG = 'dashplane.signedIn';

function cookie(name: string): string | undefined {
  for (const part of document.cookie.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return decodeURIComponent(part.slice(i + 1).trim());
  }
  return undefined;
}

/** True when the access token cookie is there and valid for at least a few more seconds. */
export function accessTokenFresh(): boolean {
  const payload = cookie('jwtPayload')?.split('.')[1];
  if (!payload) return false;
  try {
    const claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: number };
    return typeof claims.exp === 'number' && claims.exp * 1000 > Date.now() + 5000;
  } catch {
    return false;
  }
}

/** This browser signed in and has not signed out since (the refresh token may still be valid). */
export function rememberedSignIn(): boolean {
  try {
    return localStorage.getItem(FLAG) === '1';
  } catch {
    return false;
  }
}

export function rememberSignIn(signedIn: boolean): void {
  try {
    if (signedIn) localStorage.setItem(FLAG, '1');
    else localStorage.removeItem(FLAG);
  } catch {
    // storage disabled: the page asks the server instead
  }
}

/** Worth asking the server who we are: a token, or a remembered sign-in that a refresh may renew. */
export function maybeSignedIn(): boolean {
  return accessTokenFresh() || rememberedSignIn();
}
