import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { isDatabaseUnavailable } from '../../src/database/database-errors';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../local/embedded-postgres';
import { createUser, serviceTokenFor } from '../support/fixtures';
import { startTestApp, type TestApp } from '../support/test-app';

/** The requirement's bound: a dead or hung database never holds a request this long. */
const REQUEST_BOUND_MS = 10_000;

/**
 * The database goes away under a running service: its own embedded PostgreSQL is
 * stopped (and frozen) mid-run and brought back on the same port. The service
 * answers 503 DATABASE_UNAVAILABLE with Retry-After meanwhile and recovers by
 * itself, without a restart.
 */
describe('database faults', () => {
  let dir: string;
  let clusterDir: string;
  let cluster: EmbeddedDatabase;
  let t: TestApp;
  let token: string;

  const startCluster = (port?: number) => startEmbeddedPostgres({ clusterDir, databaseName: 'briefing', port });

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'briefing-db-faults-'));
    fs.chmodSync(dir, 0o755);
    clusterDir = path.join(dir, 'cluster');
    cluster = await startCluster();
    t = await startTestApp({ database: { url: cluster.url, drop: async () => undefined } });
    token = serviceTokenFor(t, await createUser(t.dataSource));
  }, 120_000);

  afterAll(async () => {
    await t?.close().catch(() => undefined);
    await cluster?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  let round = 0;
  /**
   * Reads, writes, signed-in and anonymous calls; each touches the database. Every
   * round asks for something new, so no answer comes from the HTTP cache.
   */
  const calls = () => {
    round += 1;
    const unknownFiling = `2099${String(round).padStart(10, '0')}`;
    return [
      request(t.http)
        .get('/api/v1/stocks/search')
        .query({ query: `삼성${round}` }),
      request(t.http).get(`/api/v1/disclosures/${unknownFiling}`),
      request(t.http).get('/api/v1/auth/me').set('Authorization', `Bearer ${token}`),
      request(t.http).get('/api/v1/watchlist').set('Authorization', `Bearer ${token}`),
      request(t.http).post('/api/v1/watchlist').set('Authorization', `Bearer ${token}`).send({ corp_code: '00126380' }),
    ];
  };

  async function expectDatabaseUnavailable(call: request.Test): Promise<void> {
    const label = `${call.method} ${call.url}`;
    const started = Date.now();
    const res = await call;
    expect({ label, status: res.status, code: res.body.code }).toEqual({ label, status: 503, code: 'DATABASE_UNAVAILABLE' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|terminat|stack/i);
    expect(Date.now() - started).toBeLessThan(REQUEST_BOUND_MS);
  }

  async function waitUntilReady(): Promise<void> {
    const deadline = Date.now() + 30_000;
    while ((await request(t.http).get('/health/ready')).status !== 200) {
      if (Date.now() > deadline) throw new Error('the service did not become ready again');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async function expectServing(): Promise<void> {
    const [search, filing, me, watchlist, watch] = await Promise.all(calls());
    expect([search.status, me.status, watchlist.status]).toEqual([200, 200, 200]);
    // Unknown filing, company not in the stock master: answers of the service itself, found in the database.
    expect([filing.status, watch.status]).toEqual([404, 400]);
  }

  it('serves before the fault', async () => {
    await expectServing();
    await request(t.http).get('/health/ready').expect(200);
  });

  it('answers 503 DATABASE_UNAVAILABLE with Retry-After on every call while PostgreSQL is stopped, and readiness 503', async () => {
    await cluster.stop();

    for (const call of calls()) await expectDatabaseUnavailable(call);
    const ready = await request(t.http).get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.code).toBe('DATABASE_UNAVAILABLE');
    expect(ready.headers['retry-after']).toBeDefined();
    // The process itself is alive.
    await request(t.http).get('/health').expect(200);
    // Its scrape still answers: the database reported down, the gauges read from it left out.
    const scraped = await request(t.http).get('/metrics').expect(200);
    expect(scraped.text).toMatch(/^database_up 0$/m);
    expect(scraped.text).not.toMatch(/^analysis_queue_depth[{ ]/m);
  }, 90_000);

  it('recovers by itself when PostgreSQL is back on the same port', async () => {
    const port = cluster.port;
    cluster = await startCluster(port);
    expect(cluster.port).toBe(port);

    await waitUntilReady();
    await expectServing();
    expect((await request(t.http).get('/metrics').expect(200)).text).toMatch(/^database_up 1$/m);
  }, 90_000);

  it('answers 503 within the bound while PostgreSQL accepts nothing and answers nothing (frozen), and recovers', async () => {
    const frozen = postgresProcessesOf(clusterDir);
    expect(frozen.length).toBeGreaterThan(0);
    for (const pid of frozen) process.kill(pid, 'SIGSTOP');
    try {
      // Pooled connections wait for an answer (query_timeout); new ones wait to connect (connect timeout).
      await Promise.all(calls().map((call) => expectDatabaseUnavailable(call)));
      const ready = await request(t.http).get('/health/ready');
      expect(ready.status).toBe(503);
    } finally {
      for (const pid of frozen) process.kill(pid, 'SIGCONT');
    }
    await waitUntilReady();
    await expectServing();
  }, 90_000);

  it('has PostgreSQL cancel a runaway statement (statement_timeout), answered as unavailable', async () => {
    const started = Date.now();
    const error = await t.dataSource.query('SELECT pg_sleep(30)').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ driverError: { code: '57014' } });
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(Date.now() - started).toBeLessThan(REQUEST_BOUND_MS);
  }, 30_000);
});

/** The postmaster of the cluster and every process it started (Linux /proc). */
function postgresProcessesOf(clusterDir: string): number[] {
  const postmaster = Number(fs.readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        // Field 4 of /proc/<pid>/stat is the parent pid; the command name (field 2) may hold spaces.
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        return false; // exited meanwhile
      }
    })
    .map(Number);
  return [postmaster, ...children];
}
