/** Polls `check` until it returns a truthy value or `timeoutMs` passes (then throws `what`). */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 10_000, everyMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
