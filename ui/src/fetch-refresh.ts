// Every same-origin call of the page — ours, and those the Perses packages make (projects list,
// datasource proxy queries) — goes through window.fetch. When one answers 401 because the access
// token expired, refresh the cookies once (one shared refresh for concurrent calls) and retry it.
// When the refresh fails too, tell the app so it can send the user to sign in. When the access
// cookie has already expired (session.ts), refresh before the call instead of after its 401.
import { accessTokenFresh, rememberedSignIn, rememberSignIn } from './session';

type Listener = () => void;
const signedOutListeners = new Set<Listener>();

export function onSignedOut(listener: Listener): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
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
    if (rememberedSignIn() && !accessTokenFresh() && !(await refreshOnce(originalFetch))) {
      rememberSignIn(false);
      signedOutListeners.forEach((l) => l());
      return new Response(JSON.stringify({ message: 'the session ended: sign in again', reason: 'Unauthorized' }), { status: 401, headers: { 'Content-Type': 'application/json' } });
    }
    const retryable = input instanceof Request ? input.clone() : input;
    const res = await originalFetch(input, init);
    if (res.status !== 401) return res;
    if (!(await refreshOnce(originalFetch))) {
      rememberSignIn(false);
      signedOutListeners.forEach((l) => l());
      return res;
    }
    return originalFetch(retryable, init);
  };
}
