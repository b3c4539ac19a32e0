// A TCP proxy on 127.0.0.1 in front of a real server, to cut a dependency off and bring it back:
// `down()` drops every connection and refuses new ones (as a database restart or a network blip
// would: a new connection is accepted, then closed), `unplug()` drops every connection and stops
// listening (a new connection is refused, ECONNREFUSED, as while a server restarts), `up()` lets
// connections through again (listening again on the same port after `unplug()`).
import { createConnection, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  port: number;
  down(): void;
  /** Drops every connection and stops listening until `up()`. */
  unplug(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let refusing = false;
  const server = createServer((client) => {
    if (refusing) return void client.destroy();
    const upstream = createConnection({ host: targetHost, port: targetPort });
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    down() {
      refusing = true;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    async unplug() {
      refusing = true;
      const closed = new Promise((resolve) => server.close(resolve));
      for (const s of sockets) s.destroy();
      sockets.clear();
      await closed;
    },
    async up() {
      refusing = false;
      if (!server.listening) await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    async close() {
      refusing = true;
      for (const s of sockets) s.destroy();
      if (server.listening) await new Promise((resolve) => server.close(resolve));
    },
  };
}
