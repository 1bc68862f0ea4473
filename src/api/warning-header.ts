import type { FastifyReply } from 'fastify';
import type { ErrorDetail } from '../errors.js';

/**
 * Warnings of an answer as HTTP `Warning` headers, one per warning: `299 - "<path>: <message>"`
 * (RFC 7234's miscellaneous persistent warning, as Kubernetes sends its warnings), in printable
 * ASCII with `"` and `\` escaped.
 */
export function sendWarnings(reply: FastifyReply, warnings: readonly ErrorDetail[]): void {
  if (!warnings.length) return;
  const quoted = (text: string) => text.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, (c) => `\\${c}`);
  void reply.header(
    'Warning',
    warnings.map((w) => `299 - "${quoted(`${w.path}: ${w.message}`)}"`),
  );
}

/** The texts of `Warning` headers (`299 - "text"`), unquoted: what a client prints. */
export function warningTexts(header: string | null): string[] {
  if (!header) return [];
  return [...header.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)].map((m) => m[1].replace(/\\(.)/g, '$1'));
}
