/** The address of `listen` ("HOST:PORT", "[::1]:PORT" or ":PORT", all interfaces); throws naming the form when it is not one. */
export function parseListen(listen: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(listen);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new Error(`listen "${listen}" must look like HOST:PORT, e.g. 127.0.0.1:8080`);
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}
