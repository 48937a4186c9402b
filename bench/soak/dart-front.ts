import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One call that reached the disclosure system (through an instance's front). */
export interface UpstreamCall {
  at: number;
  instance: number;
  endpoint: string;
}

/**
 * A pass-through in front of the disclosure-system sandbox, one port per instance: the sandbox
 * cannot tell its callers apart, the front can, so every upstream call is counted against the
 * instance that made it (the daily budget, and which instance's monitor polled). While `slowMs`
 * is above 0 every call waits that long first: the disclosure system answering slowly.
 */
export class DartFronts {
  readonly calls: UpstreamCall[] = [];
  slowMs = 0;
  private readonly servers: Server[] = [];

  constructor(private readonly sandboxBaseUrl: string) {}

  /** Starts one front per instance and answers their base URLs (to use as DART_API_BASE_URL). */
  async start(instances: number): Promise<string[]> {
    const target = new URL(this.sandboxBaseUrl);
    const urls: string[] = [];
    for (let index = 0; index < instances; index++) {
      const server = createServer((req, res) => {
        const url = new URL(req.url ?? '/', 'http://front');
        this.calls.push({ at: Date.now(), instance: index, endpoint: url.pathname.split('/').pop() ?? '' });
        const forward = () => {
          const upstream = httpRequest(
            { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
            (answer) => {
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              answer.pipe(res);
            },
          );
          upstream.on('error', () => res.destroy());
          req.pipe(upstream);
        };
        if (this.slowMs > 0) setTimeout(forward, this.slowMs);
        else forward();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      this.servers.push(server);
      urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}${target.pathname}`);
    }
    return urls;
  }

  async close(): Promise<void> {
    await Promise.all(
      this.servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      ),
    );
  }
}
