import { createServer, type Server, type Socket } from 'node:net';

/** What a hostile MySQL server saw of its clients. */
export interface HostileMysql {
  port: number;
  /** The capability flags each client announced in its handshake response. */
  clientFlags: number[];
  /** Every byte the clients sent after the server asked them for a file. */
  sentAfterFileRequest: Buffer[];
  close(): Promise<void>;
}

const packet = (seq: number, payload: Buffer) =>
  Buffer.concat([Buffer.from([payload.length & 0xff, (payload.length >> 8) & 0xff, payload.length >> 16, seq]), payload]);
const OK = Buffer.from([0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00]);
/** Capabilities: LONG_PASSWORD, CONNECT_WITH_DB, LOCAL_FILES, PROTOCOL_41, TRANSACTIONS, SECURE_CONNECTION, MULTI_RESULTS, PLUGIN_AUTH (no SSL). */
const CAPABILITIES = 0x1 | 0x8 | 0x80 | 0x200 | 0x2000 | 0x8000 | 0x20000 | 0x80000;

function greeting(): Buffer {
  const caps = Buffer.alloc(4);
  caps.writeUInt32LE(CAPABILITIES);
  return Buffer.concat([
    Buffer.from([10]),
    Buffer.from('8.0.36-hostile\0'),
    Buffer.from([1, 0, 0, 0]),
    Buffer.from('abcdefgh\0'),
    caps.subarray(0, 2),
    Buffer.from([45, 0x02, 0x00]),
    caps.subarray(2, 4),
    Buffer.from([21]),
    Buffer.alloc(10),
    Buffer.from('ijklmnopqrst\0'),
    Buffer.from('mysql_native_password\0'),
  ]);
}

/**
 * A MySQL server as an attacker would write one (the protocol by hand, no driver): it accepts
 * any login and answers every statement with OK, except the first that is neither SET nor START
 * nor a reset: that one it answers with a LOCAL INFILE request for `file`, as a malicious server
 * may in reply to any query. It records what the client then sends.
 */
export async function startHostileMysql(file: string): Promise<HostileMysql> {
  const clientFlags: number[] = [];
  const sentAfterFileRequest: Buffer[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer = Buffer.alloc(0);
    let phase: 'login' | 'commands' | 'file' = 'login';
    socket.write(packet(0, greeting()));
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      while (buffer.length >= 4) {
        const length = buffer[0] | (buffer[1] << 8) | (buffer[2] << 16);
        if (buffer.length < 4 + length) return;
        const seq = buffer[3];
        const payload = buffer.subarray(4, 4 + length);
        buffer = buffer.subarray(4 + length);
        if (phase === 'login') {
          clientFlags.push(payload.readUInt32LE(0));
          phase = 'commands';
          socket.write(packet(seq + 1, OK));
        } else if (phase === 'file') {
          sentAfterFileRequest.push(Buffer.from(payload));
          // an empty packet ends the file
          if (length === 0) {
            phase = 'commands';
            socket.write(packet(seq + 1, OK));
          }
        } else if (payload[0] === 0x01) socket.end();
        else {
          const sql = payload[0] === 0x03 ? payload.subarray(1).toString() : '';
          if (payload[0] !== 0x03 || /^(SET|START)\b/i.test(sql)) socket.write(packet(seq + 1, OK));
          else {
            phase = 'file';
            socket.write(packet(seq + 1, Buffer.concat([Buffer.from([0xfb]), Buffer.from(file)])));
          }
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    clientFlags,
    sentAfterFileRequest,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
