/** One problem at one JSON path, as the server's error `details` name it. */
export interface Detail {
  path: string;
  message: string;
}

/** An error dashctl reports to the user and exits with `exitCode` (1 unless said otherwise). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** A non-2xx answer of the server: status, its message, reason and details. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly method: string,
    readonly path: string,
    readonly reason?: string,
    readonly details: Detail[] = [],
    readonly body?: unknown,
  ) {
    super(message);
    this.name = 'HttpError';
  }

  /** `400 Invalid: message` plus one indented line per detail. */
  describe(indent = '  '): string {
    const head = `${this.message}${this.reason ? ` (${this.status} ${this.reason})` : ` (${this.status})`}`;
    return [head, ...this.details.map((d) => `${indent}${d.path}: ${d.message}`)].join('\n');
  }
}

/** A readable one-or-more-line text for any error. */
export function describeError(e: unknown): string {
  if (e instanceof HttpError) return e.describe();
  if (e instanceof Error) return e.message;
  return String(e);
}
