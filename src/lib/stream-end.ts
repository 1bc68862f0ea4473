import { ApiError, type Reason } from '../errors.js';

/**
 * Why a long-lived response (a watch, the audit watch) ends before its client leaves: what
 * happened and what the client should do. It is the reason its AbortController is aborted with,
 * and becomes the stream's final ERROR event (docs/api.md §6), whose message adds where to resume.
 */
export class StreamEnd {
  constructor(
    readonly reason: Reason,
    /** What happened ("the access token expired at ..."). */
    readonly why: string,
    /** What the client does before it watches again ("refresh it or sign in again"). */
    readonly fix: string,
  ) {}

  /**
   * The error of the final event. `resumeFrom`: the revision (or audit id) up to which everything
   * was sent; undefined when the client cannot resume (it must drop what it holds and start over).
   */
  error(resumeFrom: number | undefined): ApiError {
    const again =
      resumeFrom !== undefined
        ? `watch again with since=${resumeFrom}`
        : 'watch again without since (the stream starts over with an ADDED event for every current object)';
    return new ApiError(this.reason, `${this.why}; ${this.fix}, then ${again}`);
  }
}

/** The StreamEnd a signal was aborted with, if any (a client leaving or a shutdown aborts without one). */
export function streamEndOf(signal: AbortSignal): StreamEnd | undefined {
  return signal.aborted && signal.reason instanceof StreamEnd ? signal.reason : undefined;
}
