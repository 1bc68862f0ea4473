import { resourcePath, type Resource } from './api';

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  /** In an ERROR, where to resume (absent: start over). */
  revision?: number;
  object?: Resource;
}

/**
 * Follows one object through the API's watch stream (docs/api.md §6): `?watch=true&name=<name>` on its
 * list route, newline-delimited JSON. Reconnects with `since` after a dropped connection (with a
 * growing pause), and from scratch after 410. A stream the server ends with an ERROR event (the
 * access token expired, the client fell behind) is resumed at once from the revision it names (the
 * request refreshes the token), or from scratch when it names none. Returns a function that stops watching.
 */
export function watchObject(plural: string, project: string | undefined, name: string, onObject: (e: WatchEvent) => void): () => void {
  const abort = new AbortController();
  let since: number | undefined;
  let pause = 1000;

  const run = async () => {
    while (!abort.signal.aborted) {
      try {
        const query = new URLSearchParams({ watch: 'true', name, ...(since !== undefined ? { since: String(since) } : {}) });
        const res = await fetch(`${resourcePath(plural, project)}?${query}`, { signal: abort.signal, credentials: 'same-origin' });
        if (res.status === 410) {
          since = undefined;
          continue;
        }
        if (!res.ok || !res.body) throw new Error(`watch answered ${res.status}`);
        pause = 1000;
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        let ended = false;
        while (!ended) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          for (let nl = buffer.indexOf('\n'); nl >= 0 && !ended; nl = buffer.indexOf('\n')) {
            const line = buffer.slice(0, nl).trim();
            buffer = buffer.slice(nl + 1);
            if (!line) continue;
            const event = JSON.parse(line) as WatchEvent;
            since = event.revision;
            if (event.type === 'ERROR') ended = true;
            else if (event.type !== 'BOOKMARK' && event.object?.metadata.name === name) onObject(event);
          }
        }
        if (ended) {
          void reader.cancel();
          continue;
        }
      } catch {
        if (abort.signal.aborted) return;
      }
      await new Promise((r) => setTimeout(r, pause));
      pause = Math.min(pause * 2, 30_000);
    }
  };
  void run();
  return () => abort.abort();
}
