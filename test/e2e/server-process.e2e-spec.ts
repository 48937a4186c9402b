import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { type DartSandbox, startDartSandbox } from '../../local/dart-sandbox/dart-sandbox';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../local/embedded-postgres';
import { eventually } from '../support/sandboxed-app';
import { isRunning, type RunningServer, serverFixture, startServer, waitFor } from '../support/server-process';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const FLEET_ADMIN_KEY = 'fleet-admin-key-that-is-long-enough-0123';

describe('the server process (npm start)', () => {
  const { dataDir, running } = serverFixture('briefing-start-');

  const env = () => ({ APP_ENV: 'local', PORT: '0', DATA_DIR: dataDir(), LOG_LEVEL: 'info' });

  it('refuses to start with a bad variable, naming it', async () => {
    const server = startServer({
      ...env(),
      PORT: 'eighty',
      JWT_EXPIRATION_MS: '-5',
      HOST: 'everywhere',
      ADMIN_KEY_FILE: '/nonexistent/admin_key',
    });
    running.push(server);
    expect(await server.exited).toBe(1);
    expect(server.output()).toMatch(/PORT must be an integer/);
    expect(server.output()).toMatch(/JWT_EXPIRATION_MS must be an integer/);
    expect(server.output()).toMatch(/HOST must be an IP address to listen on/);
    expect(server.output()).toMatch(/ADMIN_KEY_FILE names a file that cannot be read: \/nonexistent\/admin_key \(no such file\)/);
  }, 120_000);

  it('serves with no setup, stops PostgreSQL cleanly on SIGINT and keeps its data across restarts', async () => {
    const first = startServer(env());
    running.push(first);
    const [, port] = await waitFor(first, /listening on http:\/\/127\.0\.0\.1:(\d+)/, 90_000);
    expect(first.output()).toMatch(/DATABASE_URL is not set: using the embedded PostgreSQL/);
    expect(first.output()).toMatch(/JWT_SECRET is not set: generated a signing secret/);
    // The framework's line-per-module-and-route narration is debug, not info.
    expect(first.output()).not.toMatch(/InstanceLoader|RoutesResolver|RouterExplorer|Mapped \{/);
    // What runs and what is off, after 'listening', one line each.
    await waitFor(first, /jobs: disclosure monitor every/, 10_000);
    for (const line of [
      /admin API: on \(X-Admin-Key, the key generated in .*admin-key\)/,
      /push: RECORDED, not sent/,
      /stores: App Store verification OFF/,
      /analyzer: the built-in extractive summary/,
      /disclosure system: the local SANDBOX at http:\/\/127\.0\.0\.1:\d+\/api \(DART_API_KEY is not set\); sign-in: the local provider/,
    ]) {
      expect(first.output()).toMatch(line);
    }

    const base = `http://127.0.0.1:${port}`;
    const me = await fetch(`${base}/api/v1/auth/me`);
    expect(me.status).toBe(401);
    expect(await me.json()).toMatchObject({ statusCode: 401, code: 'UNAUTHORIZED' });
    expect((await fetch(`${base}/docs`)).status).toBe(200);
    expect((await fetch(`${base}/health/ready`)).status).toBe(200);

    // The admin API works with the key generated into DATA_DIR, which the log names by file only.
    expect(first.output()).toMatch(/ADMIN_KEY is not set: generated an admin key in .*admin-key/);
    const adminKey = fs.readFileSync(path.join(dataDir(), 'admin-key'), 'utf8').trim();
    expect(first.output()).not.toContain(adminKey);
    expect((await fetch(`${base}/api/v1/admin/scheduler/status`, { headers: { 'X-Admin-Key': adminKey } })).status).toBe(200);
    expect((await fetch(`${base}/api/v1/admin/scheduler/status`, { headers: { 'X-Admin-Key': 'not-the-key' } })).status).toBe(401);

    // Write through the embedded server's own address, found in the log.
    const [, dbAddress] = first.output().match(/embedded PostgreSQL in .* \((127\.0\.0\.1:\d+)\)/)!;
    const password = fs.readFileSync(path.join(dataDir(), 'postgres.password'), 'utf8').trim();
    const client = new Client({ connectionString: `postgres://postgres:${password}@${dbAddress}/briefing` });
    await client.connect();
    const [{ id }] = (await client.query('INSERT INTO users DEFAULT VALUES RETURNING id')).rows;
    await client.end();
    const secret = fs.readFileSync(path.join(dataDir(), 'jwt-secret'), 'utf8');

    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    expect(first.output()).toMatch(/embedded PostgreSQL stopped/);
    // PostgreSQL removes its pid file only on a clean shutdown.
    expect(fs.existsSync(path.join(dataDir(), 'postgres', 'postmaster.pid'))).toBe(false);

    const second = startServer(env());
    running.push(second);
    const [, secondPort] = await waitFor(second, /listening on http:\/\/127\.0\.0\.1:(\d+)/, 60_000);
    expect(second.output()).not.toMatch(/creating the embedded PostgreSQL cluster/);
    expect(second.output()).not.toMatch(/applied migrations/);
    expect(fs.readFileSync(path.join(dataDir(), 'jwt-secret'), 'utf8')).toBe(secret);

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

/** Environment of a server that never reaches the disclosure system and starts no sandbox. */
const NO_SANDBOX = { DART_API_KEY: 'test-dart-key', DART_API_BASE_URL: 'http://127.0.0.1:9/api' };

describe('the server process after kill -9', () => {
  const { dataDir, running } = serverFixture('briefing-kill-');

  it('serves again within 60 s in the same DATA_DIR, stopping the PostgreSQL the killed server left running', async () => {
    const env = { APP_ENV: 'local', PORT: '0', DATA_DIR: dataDir(), LOG_LEVEL: 'info', ...NO_SANDBOX };
    const first = startServer(env);
    running.push(first);
    await waitFor(first, /listening on http:\/\/127\.0\.0\.1:(\d+)/, 90_000);
    first.child.kill('SIGKILL');
    await first.exited;

    // The old PostgreSQL still runs and holds the cluster.
    const pidFile = path.join(dataDir(), 'postgres', 'postmaster.pid');
    const orphan = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
    expect(isRunning(orphan)).toBe(true);

    const restartedAt = Date.now();
    const second = startServer(env);
    running.push(second);
    const [, port] = await waitFor(second, /listening on http:\/\/127\.0\.0\.1:(\d+)/, 60_000);
    expect(Date.now() - restartedAt).toBeLessThan(60_000);
    expect(second.output()).toMatch(new RegExp(`earlier run \\(pid ${orphan}\\) still holds .*: stopping it`));
    expect((await fetch(`http://127.0.0.1:${port}/health/ready`)).status).toBe(200);
    expect(isRunning(orphan)).toBe(false);

    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 180_000);
});

describe('a server that cannot start', () => {
  let dataDir: string;
  let cluster: EmbeddedDatabase;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'briefing-bootfail-'));
    fs.chmodSync(dataDir, 0o755);
    cluster = await startEmbeddedPostgres({ clusterDir: path.join(dataDir, 'cluster'), databaseName: 'clashing' });
    // A table the first migration creates is already there, so the migrations fail.
    const client = new Client({ connectionString: cluster.url });
    await client.connect();
    await client.query('CREATE TABLE users (unrelated int)');
    await client.end();
  }, 60_000);

  afterAll(async () => {
    await cluster?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const withPath = (url: string, pathname: string) => Object.assign(new URL(url), { pathname }).toString();
  const withPassword = (url: string, password: string) => Object.assign(new URL(url), { password }).toString();

  /** One clear line naming the cause, exit 1, well within a minute: never a hang or a silent rejection. */
  async function expectOneLineFailure(env: Record<string, string>, cause: RegExp): Promise<void> {
    const started = Date.now();
    const server = startServer({
      APP_ENV: 'local',
      PORT: '0',
      LOG_LEVEL: 'info',
      DATA_DIR: dataDir,
      JWT_SECRET: 'x'.repeat(32),
      ...NO_SANDBOX,
      ...env,
    });
    const code = await Promise.race([server.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 60_000))]);
    if (code === 'still running') server.child.kill('SIGKILL');
    expect(code).toBe(1);
    expect(Date.now() - started).toBeLessThan(60_000);
    const failures = server
      .output()
      .split('\n')
      .filter((line) => /could not start/.test(line));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(cause);
    expect(server.output()).not.toMatch(/UnhandledPromiseRejection|ERR_UNHANDLED/);
    expect(server.output()).not.toContain(new URL(cluster.url).password);
  }

  it('production without DATABASE_URL: refuses and says why', async () => {
    const server = startServer({ APP_ENV: 'production', PORT: '0', DATA_DIR: dataDir, JWT_SECRET: 'x'.repeat(32) });
    expect(await server.exited).toBe(1);
    expect(server.output()).toMatch(/DATABASE_URL must be set in production \(the embedded PostgreSQL is for local and dev only\)/);
    expect(fs.existsSync(path.join(dataDir, 'postgres'))).toBe(false);
  }, 120_000);

  it('a database that refuses connections', async () => {
    await expectOneLineFailure(
      { DATABASE_URL: 'postgres://postgres:pw@127.0.0.1:1/briefing' },
      /the database at 127\.0\.0\.1:1 is unreachable/,
    );
  }, 90_000);

  it('a wrong password', async () => {
    await expectOneLineFailure({ DATABASE_URL: withPassword(cluster.url, 'wrong') }, /refused the user name or password of DATABASE_URL/);
  }, 90_000);

  it('an unknown database', async () => {
    await expectOneLineFailure({ DATABASE_URL: withPath(cluster.url, '/no_such_database') }, /"no_such_database" does not exist/);
  }, 90_000);

  it('a migration that fails', async () => {
    await expectOneLineFailure({ DATABASE_URL: cluster.url }, /applying the migrations failed: .*users.* already exists/);
  }, 90_000);

  it('a port in use', async () => {
    const taken = net.createServer().listen(0, '0.0.0.0');
    await new Promise((resolve) => taken.once('listening', resolve));
    const { port } = taken.address() as net.AddressInfo;
    try {
      await expectOneLineFailure(
        { DATABASE_URL: withPath(cluster.url, '/postgres'), PORT: String(port) },
        new RegExp(`port ${port} is already in use`),
      );
    } finally {
      taken.close();
    }
  }, 90_000);

  it('an embedded PostgreSQL that cannot be created', async () => {
    const blocked = fs.mkdtempSync(path.join(os.tmpdir(), 'briefing-blocked-'));
    fs.chmodSync(blocked, 0o755); // reachable, so the cluster is not moved elsewhere when running as root
    fs.writeFileSync(path.join(blocked, 'postgres'), 'a file where the cluster directory should be');
    try {
      await expectOneLineFailure({ DATA_DIR: blocked }, /the service could not start: .*EEXIST/);
    } finally {
      fs.rmSync(blocked, { recursive: true, force: true });
    }
  }, 90_000);
});

describe('the embedded PostgreSQL in a private directory', () => {
  it('serves when DATA_DIR is inside a directory only its owner may enter (as root: the data moves where PostgreSQL can reach it)', async () => {
    const privateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'briefing-private-'));
    expect(fs.statSync(privateDir).mode & 0o777).toBe(0o700);
    const lines: string[] = [];
    const requested = path.join(privateDir, 'app', '.data', 'postgres');
    const db = await startEmbeddedPostgres({
      clusterDir: requested,
      databaseName: 'briefing',
      persistent: false,
      log: (line) => lines.push(line),
    });
    try {
      const client = new Client({ connectionString: db.url });
      await client.connect();
      const { rows } = await client.query('SELECT current_database() AS name');
      await client.end();
      expect(rows).toEqual([{ name: 'briefing' }]);
      if (process.getuid?.() === 0) {
        // PostgreSQL runs as the postgres account, which cannot enter the private directory.
        expect(db.clusterDir.startsWith(privateDir)).toBe(false);
        expect(lines.join('\n')).toContain(`the embedded PostgreSQL data lives in ${db.clusterDir}`);
        expect(fs.readFileSync(`${requested}.location`, 'utf8').trim()).toBe(db.clusterDir);
        expect(fs.statSync(db.clusterDir).mode & 0o777).toBe(0o700);
      } else {
        expect(db.clusterDir).toBe(requested);
      }
    } finally {
      await db.stop();
      fs.rmSync(privateDir, { recursive: true, force: true });
    }
    expect(fs.existsSync(db.clusterDir)).toBe(false);
  }, 120_000);
});

describe('a fleet of three server processes on one database', () => {
  const { dataDir, running } = serverFixture('briefing-fleet-');
  let database: TestDatabase;
  let sandbox: DartSandbox;

  beforeAll(async () => {
    database = await createTestDatabase();
    sandbox = await startDartSandbox({ companyCount: 400, seed: 11, now: () => new Date() });
  });
  afterAll(async () => {
    await sandbox?.close();
    await database?.drop();
  });

  const env = () => ({
    APP_ENV: 'local',
    PORT: '0',
    DATA_DIR: dataDir(),
    LOG_LEVEL: 'info',
    DATABASE_URL: database.url,
    DART_API_BASE_URL: sandbox.baseUrl,
    DART_API_KEY: sandbox.apiKey,
    DART_RETRY_BASE_MS: '10',
    JWT_SECRET: 'fleet-test-secret-that-is-long-enough-0123456789',
    ADMIN_KEY: FLEET_ADMIN_KEY,
    LEADER_TAKEOVER_MS: '3000',
    DISCLOSURE_MONITOR_AUTO_START: 'true',
    DISCLOSURE_MONITOR_INTERVAL_MS: '1000',
    DISCLOSURE_MONITOR_IDLE_INTERVAL_MS: '1000',
    ANALYSIS_SCHEDULER_AUTO_START: 'false',
    STOCK_SYNC_SCHEDULER_ENABLED: 'false',
    STOCK_SYNC_BOOTSTRAP: 'false',
  });

  /** The singleton jobs a server last said it holds. */
  const heldBy = (server: RunningServer): string[] => {
    const lines = [...server.output().matchAll(/singleton jobs held by this instance: (none|[a-z-]+(?:, [a-z-]+)*)/g)];
    const last = lines.at(-1)?.[1] ?? 'none';
    return last === 'none' ? [] : last.split(', ');
  };
  const admin = (port: string, pathname: string, method = 'GET') =>
    fetch(`http://127.0.0.1:${port}${pathname}`, { method, headers: { 'X-Admin-Key': FLEET_ADMIN_KEY } });
  const countRows = async (sql: string, params: unknown[]) => {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      return Number((await client.query<{ n: string }>(sql, params)).rows[0].n);
    } finally {
      await client.end();
    }
  };

  it('after kill -9 of the leader, another instance runs the monitor and completes the half-finished backfill, every filing stored once', async () => {
    // The first server alone (it compiles, migrates and leads every singleton job), then two followers.
    const leader = startServer(env());
    running.push(leader);
    await waitFor(leader, /listening on http:\/\/127\.0\.0\.1:(\d+)/, 120_000);
    const followers = [startServer(env()), startServer(env())];
    running.push(...followers);
    const ports = await Promise.all(
      followers.map(async (server) => (await waitFor(server, /listening on http:\/\/127\.0\.0\.1:(\d+)/, 60_000))[1]),
    );
    expect(heldBy(leader)).toEqual(expect.arrayContaining(['backfill', 'disclosure-monitor']));
    for (const follower of followers) expect(heldBy(follower)).toEqual([]);

    // A backfill of a few past days, paced so that it is half done when the leader dies.
    const past = [...new Set(sandbox.control.filings().map((filing) => filing.rcept_dt))]
      .filter((day) => day < sandbox.control.today())
      .sort();
    const [fromDate, toDate] = [past.at(-4)!, past.at(-1)!];
    const upstream = sandbox.control.filings().filter((filing) => filing.rcept_dt >= fromDate && filing.rcept_dt <= toDate);
    expect(upstream.length).toBeGreaterThan(20);
    const started = await admin(ports[0], `/api/v1/admin/backfill?fromDate=${fromDate}&toDate=${toDate}&delayMs=150`, 'POST');
    expect(started.status).toBe(202);
    const status = async (port: string) => (await (await admin(port, '/api/v1/admin/backfill/status')).json()) as Record<string, unknown>;
    await eventually(async () => Number((await status(ports[1])).processed) >= 5, 30_000);

    leader.child.kill('SIGKILL');
    await leader.exited;
    const killedAt = Date.now();
    const newLeader = await eventually(async () => followers.find((server) => heldBy(server).includes('backfill')), 15_000);
    expect(heldBy(newLeader)).toEqual(expect.arrayContaining(['backfill', 'disclosure-monitor']));
    expect(Date.now() - killedAt).toBeLessThan(3_000 + 2_000);

    const done = await eventually(async () => {
      const now = await status(ports[0]);
      return now.status === 'running' ? null : now;
    }, 60_000);
    expect(done).toMatchObject({ status: 'completed', total: upstream.length, processed: upstream.length, failed: 0 });
    const stored = await countRows('SELECT count(*) AS n FROM disclosures WHERE rcept_no = ANY($1)', [
      upstream.map((filing) => filing.rcept_no),
    ]);
    expect(stored).toBe(upstream.length);

    // The monitor now runs on the survivor: a new filing reaches every instance.
    const fresh = sandbox.control.publishFiling();
    for (const port of ports) {
      await eventually(async () => (await fetch(`http://127.0.0.1:${port}/api/v1/disclosures/${fresh.rcept_no}`)).status === 200, 15_000);
    }
  }, 240_000);
});
