import type { Connection, Submittable } from 'pg';
import { jsonValue, typeName } from './result-values.js';

/** Why a result was cut short. */
export type CutReason = 'rows' | 'bytes';

/** What a query answered: its columns, its rows (at most the cap), and why it stopped early, if it did. */
export interface CappedResult {
  columns: { name: string; type: string }[];
  rows: Record<string, unknown>[];
  cut?: CutReason;
}

interface Field {
  name: string;
  dataTypeID: number;
}

/**
 * One statement through the extended query protocol (Parse, Bind, Describe, Execute with a row
 * limit, Sync), as a node-postgres submittable:
 * - PostgreSQL refuses several statements in one Parse, so a `;` cannot end the read-only
 *   transaction and run a write after it;
 * - Execute asks for at most `maxRows + 1` rows: the server stops there (the portal is suspended,
 *   then dropped with the transaction), the extra row only tells that the result was cut;
 * - the bytes the server sends while it runs are counted on the socket; past `maxBytes` the
 *   connection is destroyed (the caller must not reuse it), so one huge row cannot fill memory.
 * Rows are kept as JSON values (`result-values.ts`).
 */
export class CappedQuery implements Submittable {
  readonly done: Promise<CappedResult>;
  private resolve!: (r: CappedResult) => void;
  private reject!: (e: unknown) => void;
  private fields: Field[] = [];
  private readonly rows: Record<string, unknown>[] = [];
  private cut?: CutReason;
  private bytes = 0;
  private stopCounting?: () => void;
  private settled = false;

  constructor(
    private readonly text: string,
    private readonly maxRows: number,
    private readonly maxBytes: number,
  ) {
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** Whether the connection was destroyed for the byte cap (it must then be discarded). */
  get connectionDestroyed(): boolean {
    return this.cut === 'bytes';
  }

  submit(connection: Connection): void {
    const stream = connection.stream;
    const count = (chunk: Buffer) => {
      this.bytes += chunk.length;
      if (this.bytes > this.maxBytes && !this.cut) {
        this.cut = 'bytes';
        stream.destroy();
      }
    };
    stream.on('data', count);
    this.stopCounting = () => stream.removeListener('data', count);
    const s = stream as { cork?: () => void; uncork?: () => void };
    s.cork?.();
    try {
      connection.parse({ text: this.text, name: '', types: [] }, true);
      connection.bind({ portal: '', statement: '', values: [] }, true);
      connection.describe({ type: 'P', name: '' }, true);
      // pg-protocol writes `rows` as an Int32 (@types/pg says string)
      connection.execute({ portal: '', rows: (this.maxRows + 1) as unknown as string }, true);
      connection.sync();
    } finally {
      s.uncork?.();
    }
  }

  handleRowDescription(msg: { fields: Field[] }): void {
    this.fields = msg.fields;
  }

  handleDataRow(msg: { fields: (string | null)[] }): void {
    if (this.cut) return;
    if (this.rows.length >= this.maxRows) {
      this.cut = 'rows';
      return;
    }
    const row: Record<string, unknown> = {};
    try {
      this.fields.forEach((f, i) => {
        row[f.name] = jsonValue(f.dataTypeID, msg.fields[i]);
      });
    } catch (e) {
      this.fail(e);
      return;
    }
    this.rows.push(row);
  }

  handlePortalSuspended(): void {
    // Execute stopped at maxRows + 1 rows: more exist (or the extra one did), Sync follows
    this.cut ??= 'rows';
  }

  handleCommandComplete(): void {}

  handleEmptyQuery(): void {}

  handleCopyInResponse(connection: Connection): void {
    (connection as unknown as { sendCopyFail(msg: string): void }).sendCopyFail('the SQL proxy does not send data to COPY FROM STDIN');
  }

  handleCopyData(): void {
    this.fail(Object.assign(new Error('COPY output is not answered by the SQL proxy; write a SELECT instead'), { code: '0A000' }));
  }

  handleError(err: unknown): void {
    // the byte cap destroyed the connection: the rows read so far are the answer
    if (this.cut === 'bytes') this.finish();
    else this.fail(err);
  }

  handleReadyForQuery(): void {
    this.finish();
  }

  private finish(): void {
    if (this.settled) return;
    this.settled = true;
    this.stopCounting?.();
    this.resolve({
      columns: this.fields.map((f) => ({ name: f.name, type: typeName(f.dataTypeID) })),
      rows: this.rows,
      ...(this.cut ? { cut: this.cut } : {}),
    });
  }

  private fail(e: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.stopCounting?.();
    this.reject(e);
  }
}
