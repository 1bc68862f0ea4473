// Every same-origin call of the page — ours, and those the Perses packages make (projects list,
// datasource proxy queries) — goes through window.fetch. When one answers 401 because the access
// token expired, refresh the cookies once (one shared refresh for concurrent calls) and retry it.
// When the refresh fails too (a sign-out in another tab, an expired or reused refresh token), the
// session has ended: the app asks the user to sign in again over the page, the call waits, and
// goes on once they have (so a save in flight is not lost); if they do not, the app sends them to
// the sign-in page. When the access cookie has already expired (session.ts), refresh before the
// call instead of after its 401.
import { accessTokenFresh, rememberedSignIn, rememberSignIn } from './session';

type Listener = () => void;
const signedOutListeners = new Set<Listener>();

export function onSignedOut(listener: Listener): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

/** Asks the user to sign in again; true once they have, false when they will not. */
export type Reauthenticate = () => Promise<boolean>;
let reauthenticate: Reauthenticate | undefined;
let reauthenticating: Promise<boolean> | undefined;

/** The app's way of signing the user in again without leaving the page (one at a time). */
export function onSessionEnded(handler: Reauthenticate): () => void {
  reauthenticate = handler;
  return () => {
    if (reauthenticate === handler) reauthenticate = undefined;
  };
}

/**
 * The session ended: every call that finds it so waits for one sign-in over the page; true when
 * the user signed in again (the calls then go on), false when they did not (the app is told).
 */
async function sessionEnded(): Promise<boolean> {
  rememberSignIn(false);
  if (reauthenticate) {
    reauthenticating ??= reauthenticate().finally(() => (reauthenticating = undefined));
    if (await reauthenticating) {
      rememberSignIn(true);
      return true;
    }
  }
  signedOutListeners.forEach((l) => l());
  return false;
}

let refreshing: Promise<boolean> | undefined;

export function refreshOnce(originalFetch: typeof fetch): Promise<boolean> {
  refreshing ??= originalFetch('/api/auth/refresh', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json' },
    body: '{}',
  })
    .then((r) => r.ok)
    .catch(() => false)
    .finally(() => {
      // calls that failed with the old token before the refresh finished reuse its result
      setTimeout(() => (refreshing = undefined), 1000);
    });
  return refreshing;
}

function sameOriginApi(url: URL): boolean {
  return url.origin === window.location.origin && /^\/(api|proxy)\//.test(url.pathname) && !url.pathname.startsWith('/api/auth/');
}

export function installFetchRefresh(): void {
  const originalFetch = window.fetch.bind(window);
  window.fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input), window.location.href);
    if (!sameOriginApi(url)) return originalFetch(input, init);
    if (rememberedSignIn() && !accessTokenFresh() && !(await refreshOnce(originalFetch)) && !(await sessionEnded())) {
      return new Response(JSON.stringify({ message: 'the session ended: sign in again', reason: 'Unauthorized' }), {
        status: 401,
        headers: { 'Content-Type': 'application/json' },
      });
    }
    const retryable = input instanceof Request ? input.clone() : input;
    const res = await originalFetch(input, init);
    if (res.status !== 401) return res;
    if (!(await refreshOnce(originalFetch)) && !(await sessionEnded())) return res;
    return originalFetch(retryable, init);
  };
}
