/** dashplane's own HTTP headers (beyond the Perses API), shared by the server and dashctl. */

/** Request header naming the field manager of a write: the client making it (`dashctl`, `web-ui`...). */
export const MANAGER_HEADER = 'X-Dashplane-Manager';

/** Response header of a PUT (or restore) that changed nothing: same version, no history entry, no watch event. */
export const UNCHANGED_HEADER = 'X-Dashplane-Unchanged';

export const SKIP_UNCHANGED_HEADER = 'X-Dashplane-Skip-Unchanged';
