import { once } from 'node:events';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { isRunning, serverFixture, startServer, waitFor } from '../support/server-process';

/** A server that never reaches the disclosure system and starts no sandbox. */
const NO_SANDBOX = { DART_API_KEY: 'test-dart-key', DART_API_BASE_URL: 'http://127.0.0.1:9/api' };

describe('Ctrl-C twice (npm start)', () => {
  const { dataDir, running } = serverFixture('briefing-interrupt-');
  const env = () => ({ APP_ENV: 'local', PORT: '0', DATA_DIR: dataDir(), LOG_LEVEL: 'info', ...NO_SANDBOX });

  it('the second SIGINT stops the embedded PostgreSQL at once and exits, which the next start recovers from', async () => {
    const server = startServer(env());
    running.push(server);
    const [, port] = await waitFor(server, /listening on http:\/\/\S+:(\d+)/, 120_000);
    const postmaster = Number(fs.readFileSync(path.join(dataDir(), 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(isRunning(postmaster)).toBe(true);

    // A request whose body never ends: the orderly shutdown of the first SIGINT waits for it.
    const client = net.connect(Number(port), '127.0.0.1');
    await once(client, 'connect');
    client.on('error', () => undefined);
    client.write(
      'POST /api/v1/auth/idp1/token HTTP/1.1\r\nHost: local\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"acc',
    );
    try {
      server.child.kill('SIGINT');
      await waitFor(server, /SIGINT: shutting down/, 10_000);
      server.child.kill('SIGINT');

      await server.exited;
      expect(isRunning(postmaster)).toBe(false);
    } finally {
      client.destroy();
    }
    // Ended by the signal, as an interrupted program does (npm then exits quietly).
    expect(server.child.signalCode).toBe('SIGINT');
    expect(server.output()).toMatch(/SIGINT again: stopping the embedded PostgreSQL immediately/);
    // The orderly stop never got that far.
    expect(server.output()).not.toMatch(/embedded PostgreSQL stopped/);

    const again = startServer(env());
    running.push(again);
    await waitFor(again, /listening on http:\/\/\S+:(\d+)/, 120_000);
    expect(again.output()).not.toMatch(/earlier run .* still holds/);
    again.child.kill('SIGINT');
    expect(await again.exited).toBe(0);
    expect(again.output()).toMatch(/embedded PostgreSQL stopped/);
  }, 300_000);
});
