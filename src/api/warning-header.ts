import type { FastifyReply } from 'fastify';
import type { ErrorDetail } from '../errors.js';

/**
 * At most this many bytes of `Warning` headers in one answer (Kubernetes' bound too): clients cap
 * the headers they read (Node's fetch at 16 KB in all) and fail the whole answer past it.
 */
export const MAX_WARNING_BYTES = 4096;
/** A warning's text is cut after this many characters. */
const MAX_WARNING_TEXT = 512;

/**
 * Warnings of an answer as HTTP `Warning` headers: `299 - "<path>: <message>"` (RFC 7234's
 * miscellaneous persistent warning, as Kubernetes sends its warnings), in printable ASCII with `"`
 * and `\` escaped. Warnings with the same message are one header naming each place (a dashboard
 * whose 84 queries ask for one missing datasource gets one warning, not 84); past
 * MAX_WARNING_BYTES a last warning says how many were left out and where they all are.
 */
export function sendWarnings(reply: FastifyReply, warnings: readonly ErrorDetail[]): void {
  if (!warnings.length) return;
  const texts = grouped(warnings);
  const headers: string[] = [];
  let bytes = 0;
  for (const [i, text] of texts.entries()) {
    const header = `299 - "${quoted(text)}"`;
    if (bytes + header.length > MAX_WARNING_BYTES - 200) {
      const rest = texts.length - i;
      headers.push(
        `299 - "${quoted(`${rest} more warning(s) left out of these headers: POST the object to /api/validate (or run dashctl lint) for every one`)}"`,
      );
      break;
    }
    headers.push(header);
    bytes += header.length;
  }
  void reply.header('Warning', headers);
}

/** One text per distinct message, naming its places: "a: m", "a and 2 more places (b, c): m". */
function grouped(warnings: readonly ErrorDetail[]): string[] {
  const places = new Map<string, string[]>();
  for (const w of warnings) {
    const list = places.get(w.message);
    if (list) list.push(w.path);
    else places.set(w.message, [w.path]);
  }
  return [...places].map(([message, paths]) => {
    const where =
      paths.length === 1
        ? paths[0]
        : `${paths[0]} and ${paths.length - 1} more place(s) (${paths.slice(1, 3).join(', ')}${paths.length > 3 ? ', ...' : ''})`;
    const text = `${where}: ${message}`;
    return text.length > MAX_WARNING_TEXT ? `${text.slice(0, MAX_WARNING_TEXT - 3)}...` : text;
  });
}

const quoted = (text: string) => text.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, (c) => `\\${c}`);

/** The texts of `Warning` headers (`299 - "text"`), unquoted: what a client prints. */
export function warningTexts(header: string | null): string[] {
  if (!header) return [];
  return [...header.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)].map((m) => m[1].replace(/\\(.)/g, '$1'));
}
