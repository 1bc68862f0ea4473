/** dashplane's own HTTP headers (beyond the Perses API), shared by the server and dashctl. */

/** Request header naming the field manager of a write: the client making it (`dashctl`, `web-ui`...). */
export const MANAGER_HEADER = 'X-Dashplane-Manager';

/** Response header of a PUT (or restore) that changed nothing: same version, no history entry, no watch event. */
export const UNCHANGED_HEADER = 'X-Dashplane-Unchanged';

/**
 * Request header of a PUT (or restore): `true` asks that a write whose content equals what is
 * stored change nothing (answered with UNCHANGED_HEADER). Without it such a PUT is a write like
 * any other (version + 1), as Perses clients expect.
 */
export const SKIP_UNCHANGED_HEADER = 'X-Dashplane-Skip-Unchanged';

/**
 * Response header on every answer: the server's version. It tells a client that the server is
 * dashplane, and so honours dashplane's extensions such as `?dryRun=true`, which a Perses server
 * ignores (carrying the write out); dashctl checks it before relying on a dry run.
 */
export const VERSION_HEADER = 'X-Dashplane-Version';

/**
 * Response header of an answer through an HTTP datasource's proxy: where it came from. `hit` kept
 * by the query cache, `coalesced` shared with an identical request in flight, `miss` sent upstream
 * for this request (and shared with any that joined it), `bypass` sent upstream as it came, never
 * shared (the cache is off for the datasource, or the request is not a shareable read).
 */
export const CACHE_HEADER = 'X-Dashplane-Cache';
