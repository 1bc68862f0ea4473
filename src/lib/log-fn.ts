/** A log line for parts built before the server's logger exists (the store): level, message, error. */
export type LogFn = (level: 'error' | 'warn' | 'info', msg: string, err?: unknown) => void;

/**
 * A LogFn that keeps its lines until `attach` gives it the real logger, then passes them on (the
 * store is opened, and may log, before the server's logger is made).
 */
export function deferredLog(): { log: LogFn; attach(to: LogFn): void } {
  let target: LogFn | undefined;
  const held: Parameters<LogFn>[] = [];
  return {
    log: (...line) => (target ? target(...line) : void held.push(line)),
    attach: (to) => {
      target = to;
      for (const line of held.splice(0)) to(...line);
    },
  };
}

/** Standard error, for the commands that run without the server's logger (backup, restore, migrate-store). */
export const consoleLog: LogFn = (level, msg, err) =>
  console.error(
    `dashplane: ${level === 'info' ? '' : `${level}: `}${msg}${err instanceof Error && !msg.includes(err.message) ? ` (${err.message})` : ''}`,
  );
