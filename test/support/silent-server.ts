import { createServer, type Socket } from 'node:net';
import tls from 'node:tls';

/** A peer that hangs: it accepts every TCP connection and never sends a byte. */
export interface SilentServer {
  port: number;
  /** `http://127.0.0.1:<port>`, for clients whose URL can be set. */
  url: string;
  /** Connections accepted so far. */
  accepted(): number;
  close(): Promise<void>;
}

export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    // Read and drop what the client sends: unread, it would hide a client's closing the connection.
    socket.resume();
    socket.on('close', () => sockets.delete(socket));
    // A client that gives up resets the connection; that is its business, not an error here.
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    accepted: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Sends every TLS connection this process opens to `port` on loopback, whatever host it names:
 * Google's hosts (FCM, the OAuth token endpoint, App Check's keys) cannot be configured, and
 * nothing must leave the machine. `overrides`, e.g. `rejectUnauthorized: false` for a server with
 * a certificate of its own. Undo with `mockRestore()`.
 */
export function redirectTlsTo(port: number, overrides: tls.ConnectionOptions = {}): jest.SpyInstance {
  const connect = tls.connect.bind(tls);
  return jest.spyOn(tls, 'connect').mockImplementation(((...args: unknown[]) => {
    // (options, callback) from https agents and fetch, (port, host, options) from http2.connect.
    const options = args.find((arg): arg is tls.ConnectionOptions => typeof arg === 'object' && arg !== null) ?? {};
    const callback = args.find((arg): arg is () => void => typeof arg === 'function');
    return connect({ ...options, ...overrides, host: '127.0.0.1', port }, callback);
  }) as typeof tls.connect);
}
