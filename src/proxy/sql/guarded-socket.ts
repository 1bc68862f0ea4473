import { Socket, type TcpSocketConnectOpts } from 'node:net';
import type { DeniedNetworks } from '../denied-networks.js';

/** A socket's own connect method, for the TCP options form. */
type Connect = (this: Socket, options: TcpSocketConnectOpts) => Socket;

/**
 * Connects `socket` (with `connect`, its own connect method) to `host`:`port` only at an address
 * the proxy's denylist allows: an IP literal or `localhost` is checked as written, a name on every
 * address it resolves to (`DeniedNetworks.lookup`), and the connection goes to the address that
 * was checked, so a name that resolves elsewhere between a check and the connect (DNS rebinding)
 * cannot move it. A denied address destroys the socket with code `EDENIED` and `denied` (the
 * reason), which sql-errors.ts answers 403.
 */
export function connectGuarded(socket: Socket, connect: Connect, denied: DeniedNetworks, port: number, host: string): Socket {
  const reason = denied.hostReason(host);
  if (reason) {
    process.nextTick(() => socket.destroy(Object.assign(new Error(`address ${host} is denied`), { code: 'EDENIED', denied: reason })));
    return socket;
  }
  return connect.call(socket, { port, host, lookup: denied.lookup });
}

/** A new TCP socket connecting to `host`:`port` through the denylist (`connectGuarded`), without Nagle's delay. */
export function guardedSocket(denied: DeniedNetworks, host: string, port: number): Socket {
  const socket = new Socket();
  socket.setNoDelay(true);
  socket.setKeepAlive(true);
  return connectGuarded(socket, socket.connect, denied, port, host);
}
