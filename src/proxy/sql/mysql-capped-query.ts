import type { Connection } from 'mysql2';
import type { CappedResult, CutReason } from './capped-query.js';
import { type MysqlColumn, mysqlTypeName, mysqlValue } from './mysql-values.js';

/** What one statement answered, and whether its connection was destroyed by a cap (it must then be discarded). */
export interface MysqlCappedResult extends CappedResult {
  connectionDestroyed: boolean;
}

/** The connection's socket now (mysql2 replaces it with the TLS socket after the handshake). */
const socketOf = (c: Connection) => (c as unknown as { stream: NodeJS.ReadableStream & { destroy(): void } }).stream;

/**
 * One statement through the text protocol, its rows streamed as they arrive:
 * - the connection has no MULTI_STATEMENTS capability, so the server refuses a second statement
 *   after a `;` (it cannot end the read-only transaction and write);
 * - the server sends every row of a result (the protocol has no row limit): at row `maxRows + 1`
 *   the connection is destroyed, which stops the server at its next write; the extra row only
 *   tells that the result was cut;
 * - the bytes the server sends are counted on the socket; past `maxBytes` the connection is
 *   destroyed, so one huge row cannot fill memory.
 * Rows are kept as JSON values (`mysql-values.ts`), one result set: the first.
 */
export function cappedMysqlQuery(c: Connection, text: string, maxRows: number, maxBytes: number): Promise<MysqlCappedResult> {
  return new Promise((resolve, reject) => {
    const socket = socketOf(c);
    let columns: MysqlColumn[] | undefined;
    const rows: Record<string, unknown>[] = [];
    let cut: CutReason | undefined;
    let bytes = 0;
    let settled = false;
    const stop = (reason: CutReason) => {
      cut = reason;
      socket.destroy();
    };
    const count = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes && !cut) stop('bytes');
    };
    socket.on('data', count);
    const finish = (e?: unknown) => {
      if (settled) return;
      settled = true;
      socket.removeListener('data', count);
      c.removeListener('error', finish);
      // a cap destroyed the connection: the rows read so far are the answer
      if (e && !cut) return reject(e);
      resolve({
        columns: (columns ?? []).map((f) => ({ name: f.name, type: mysqlTypeName(f) })),
        rows,
        ...(cut ? { cut } : {}),
        connectionDestroyed: cut !== undefined,
      });
    };
    const q = c.query({ sql: text, rowsAsArray: true, typeCast: false });
    q.on('fields', (fields: MysqlColumn[] | undefined) => {
      columns ??= fields;
    });
    q.on('result', (row: unknown, index: number) => {
      if (cut || index > 0 || !Array.isArray(row) || !columns) return;
      if (rows.length >= maxRows) return stop('rows');
      const out: Record<string, unknown> = {};
      columns.forEach((f, i) => {
        out[f.name] = mysqlValue(f, row[i] as Buffer | null);
      });
      rows.push(out);
    });
    // the server's refusal reaches the query; a lost connection only the connection (mysql2 tells a query without a callback nothing)
    q.on('error', finish);
    c.on('error', finish);
    q.on('end', () => finish());
  });
}
