import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';

const ROOT = path.resolve(__dirname, '../..');

interface RunningServer {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * `npm start` as a newcomer runs it (node scripts/start.js: build when stale,
 * embedded PostgreSQL in DATA_DIR), driven as a real process.
 */
function startServer(env: Record<string, string>): RunningServer {
  let output = '';
  const child = spawn(process.execPath, ['scripts/start.js'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitFor(server: RunningServer, pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const match = server.output().match(pattern);
    if (match) return match;
    if (server.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`did not see ${pattern} in the server output:\n${server.output()}`);
}

describe('the server process (npm start)', () => {
  let dataDir: string;
  const running: RunningServer[] = [];

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'briefing-start-'));
    fs.chmodSync(dataDir, 0o755);
  });

  afterAll(async () => {
    for (const server of running) {
      if (server.child.exitCode === null) {
        server.child.kill('SIGINT');
        await server.exited;
      }
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const env = () => ({ APP_ENV: 'local', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info' });

  it('refuses to start with a bad variable, naming it', async () => {
    const server = startServer({ ...env(), PORT: 'eighty', JWT_EXPIRATION_MS: '-5' });
    running.push(server);
    expect(await server.exited).toBe(1);
    expect(server.output()).toMatch(/PORT must be an integer/);
    expect(server.output()).toMatch(/JWT_EXPIRATION_MS must be an integer/);
  }, 120_000);

  it('serves with no setup, stops PostgreSQL cleanly on SIGINT and keeps its data across restarts', async () => {
    const first = startServer(env());
    running.push(first);
    const [, port] = await waitFor(first, /listening on http:\/\/localhost:(\d+)/, 90_000);
    expect(first.output()).toMatch(/DATABASE_URL is not set: using the embedded PostgreSQL/);
    expect(first.output()).toMatch(/JWT_SECRET is not set: generated a signing secret/);

    const base = `http://127.0.0.1:${port}`;
    const me = await fetch(`${base}/api/v1/auth/me`);
    expect(me.status).toBe(401);
    expect(await me.json()).toMatchObject({ statusCode: 401, code: 'UNAUTHORIZED' });
    expect((await fetch(`${base}/docs`)).status).toBe(200);
    expect((await fetch(`${base}/health/ready`)).status).toBe(200);

    // Write through the embedded server's own address, found in the log.
    const [, dbAddress] = first.output().match(/embedded PostgreSQL in .* \((127\.0\.0\.1:\d+)\)/)!;
    const password = fs.readFileSync(path.join(dataDir, 'postgres.password'), 'utf8').trim();
    const client = new Client({ connectionString: `postgres://postgres:${password}@${dbAddress}/briefing` });
    await client.connect();
    const [{ id }] = (await client.query('INSERT INTO users DEFAULT VALUES RETURNING id')).rows;
    await client.end();
    const secret = fs.readFileSync(path.join(dataDir, 'jwt-secret'), 'utf8');

    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    expect(first.output()).toMatch(/embedded PostgreSQL stopped/);
    // PostgreSQL removes its pid file only on a clean shutdown.
    expect(fs.existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);

    const second = startServer(env());
    running.push(second);
    const [, secondPort] = await waitFor(second, /listening on http:\/\/localhost:(\d+)/, 60_000);
    expect(second.output()).not.toMatch(/creating the embedded PostgreSQL cluster/);
    expect(second.output()).not.toMatch(/applied migrations/);
    expect(fs.readFileSync(path.join(dataDir, 'jwt-secret'), 'utf8')).toBe(secret);

    const [, secondDb] = second.output().match(/embedded PostgreSQL in .* \((127\.0\.0\.1:\d+)\)/)!;
    const again = new Client({ connectionString: `postgres://postgres:${password}@${secondDb}/briefing` });
    await again.connect();
    const kept = await again.query('SELECT id FROM users WHERE id = $1', [id]);
    await again.end();
    expect(kept.rows).toEqual([{ id }]);
    expect((await fetch(`http://127.0.0.1:${secondPort}/health`)).status).toBe(200);

    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 180_000);
});
