import request from 'supertest';
import { ADMIN_KEY, eventually, type SandboxedApp, startSandboxedApp } from '../support/sandboxed-app';

interface StockRow {
  corp_code: string;
  corp_name: string;
  stock_code: string;
  market_type: string;
}

describe('stock master sync', () => {
  let t: SandboxedApp;

  beforeAll(async () => {
    t = await startSandboxedApp();
  });
  afterAll(() => t?.close());

  const startSync = (mode?: string) =>
    request(t.http)
      .post(`/api/v1/admin/stocks/sync${mode ? `?mode=${mode}` : ''}`)
      .set('X-Admin-Key', ADMIN_KEY);
  const status = async () => (await request(t.http).get('/api/v1/admin/stocks/sync/status').set('X-Admin-Key', ADMIN_KEY).expect(200)).body;
  const finished = () => eventually(async () => ((await status()).status === 'running' ? null : status()));
  const stocks = async () =>
    (await t.dataSource.query('SELECT corp_code, corp_name, stock_code, market_type FROM stocks ORDER BY corp_code')) as StockRow[];
  /** What the master should hold: the sandbox's main- and second-board companies. */
  const expectedStocks = () =>
    [...t.sandbox.control.companiesIn('Y'), ...t.sandbox.control.companiesIn('K')]
      .map((company) => ({
        corp_code: company.corpCode,
        corp_name: company.corpName,
        stock_code: company.stockCode!,
        market_type: company.market,
      }))
      .sort((a, b) => a.corp_code.localeCompare(b.corp_code));

  it('reports idle before the first sync', async () => {
    expect(await status()).toMatchObject({
      status: 'idle',
      mode: null,
      phase: null,
      total: 0,
      processed: 0,
      rate_per_second: null,
      eta_seconds: null,
    });
  });

  it('answers 400 for an unknown mode', async () => {
    const res = await startSync('everything').expect(400);
    expect(res.body.message).toMatch(/mode must be incremental or bootstrap/);
  });

  it('bootstrap stores exactly the Y and K companies, and a second start while it runs is 409', async () => {
    const started = await startSync('bootstrap').expect(202);
    expect(started.body).toEqual({ message: expect.any(String), mode: 'bootstrap' });
    const busy = await startSync('incremental').expect(409);
    expect(busy.body.code).toBe('STOCK_SYNC_RUNNING');

    const done = await finished();
    const expected = expectedStocks();
    expect(done).toMatchObject({
      status: 'completed',
      mode: 'bootstrap',
      phase: 'removing',
      eta_seconds: 0,
      added: expected.length,
      updated: 0,
      removed: 0,
      failed: 0,
      last_error: null,
    });
    // Every stock-coded company was looked up: listed, third board and delisted ones.
    expect(done.total).toBe(t.sandbox.control.companies().filter((company) => company.stockCode !== null).length);
    expect(done.processed).toBe(done.total);
    expect(done.started_at).toEqual(expect.any(String));
    expect(done.finished_at).toEqual(expect.any(String));
    expect(await stocks()).toEqual(expected);
    const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM corp_codes');
    expect(n).toBe(t.sandbox.control.companies().length);
  });

  it('incremental adds only new companies and leaves renamed ones alone', async () => {
    const [renamed] = t.sandbox.control.companiesIn('Y');
    const oldName = renamed.corpName;
    t.sandbox.control.renameCompany(renamed.corpCode, '새이름홀딩스');
    const fresh = t.sandbox.control.moveBoard(t.sandbox.control.addCompany().corpCode, 'K');
    const unlisted = t.sandbox.control.addCompany();

    await startSync().expect(202);
    const done = await finished();
    expect(done).toMatchObject({ status: 'completed', mode: 'incremental', total: 1, processed: 1, added: 1, updated: 0, removed: 0 });

    const rows = await stocks();
    expect(rows.find((row) => row.corp_code === fresh.corpCode)).toMatchObject({ market_type: 'K', stock_code: fresh.stockCode });
    expect(rows.find((row) => row.corp_code === unlisted.corpCode)).toBeUndefined();
    expect(rows.find((row) => row.corp_code === renamed.corpCode)?.corp_name).toBe(oldName);
  });

  it('bootstrap applies renames, board moves and delistings', async () => {
    const [moved, delisted, toThirdBoard] = t.sandbox.control.companiesIn('Y').slice(1, 4);
    t.sandbox.control.moveBoard(moved.corpCode, 'K');
    t.sandbox.control.delist(delisted.corpCode);
    t.sandbox.control.moveBoard(toThirdBoard.corpCode, 'N');

    await startSync('bootstrap').expect(202);
    const done = await finished();
    // The rename from the previous test, and the move to K.
    expect(done).toMatchObject({ status: 'completed', added: 0, updated: 2, removed: 2, failed: 0 });
    expect(await stocks()).toEqual(expectedStocks());
    const search = await request(t.http).get('/api/v1/stocks/search').query({ query: '새이름홀딩스' }).expect(200);
    expect(search.body).toHaveLength(1);
  });

  it('fails with the upstream status shown when the key is refused', async () => {
    t.sandbox.control.setKeyStatus('011');
    try {
      await startSync('bootstrap').expect(202);
      const done = await finished();
      expect(done.status).toBe('failed');
      expect(done.last_error).toMatch(/011/);
      expect(done.last_error).not.toContain(t.sandbox.apiKey);
      // Nothing was removed by a sync that could not read the list.
      expect(await stocks()).toEqual(expectedStocks());
    } finally {
      t.sandbox.control.setKeyStatus(null);
    }
  });

  it('keeps going past a company whose lookup keeps failing, and says so', async () => {
    const added = t.sandbox.control.moveBoard(t.sandbox.control.addCompany().corpCode, 'Y');
    // The one company.json lookup fails on both attempts.
    t.sandbox.control.failNext(2, '900', 'company.json');
    await startSync('incremental').expect(202);
    const done = await finished();
    expect(done).toMatchObject({ status: 'completed', total: 1, processed: 1, added: 0, failed: 1 });
    expect(done.last_error).toMatch(new RegExp(added.corpCode));

    // It was not marked as looked up, so the next incremental run picks it up.
    await startSync('incremental').expect(202);
    expect(await finished()).toMatchObject({ status: 'completed', total: 1, added: 1, failed: 0 });
  });

  it('with STOCK_SYNC_SCHEDULER_ENABLED fills an empty master at boot and schedules the daily run at 05:00 KST', async () => {
    const scheduled = await startSandboxedApp({ app: { env: { STOCK_SYNC_SCHEDULER_ENABLED: 'true' } } });
    try {
      await eventually(async () => (await scheduled.dataSource.query('SELECT 1 FROM stocks LIMIT 1')).length);
      const jobs = await request(scheduled.http).get('/api/v1/admin/jobs').set('X-Admin-Key', ADMIN_KEY).expect(200);
      const job = (jobs.body as { jobs: { name: string; scheduled: boolean; next_run_at: string }[] }).jobs.find(
        (candidate) => candidate.name === 'stock-sync',
      );
      expect(job).toMatchObject({ scheduled: true });
      const next = new Date(job!.next_run_at);
      // 05:00 in Korea is 20:00 UTC the day before.
      expect([next.getUTCHours(), next.getUTCMinutes(), next.getUTCSeconds()]).toEqual([20, 0, 0]);
      expect(next.getTime() - Date.now()).toBeLessThanOrEqual(24 * 60 * 60 * 1000);
    } finally {
      await scheduled.close();
    }
  });

  it('does not schedule the daily run by default outside production', async () => {
    const jobs = await request(t.http).get('/api/v1/admin/jobs').set('X-Admin-Key', ADMIN_KEY).expect(200);
    expect((jobs.body as { jobs: { name: string }[] }).jobs.find((job) => job.name === 'stock-sync')).toMatchObject({
      scheduled: false,
      next_run_at: null,
    });
  });

  it('refuses the admin routes without the key', async () => {
    await request(t.http).post('/api/v1/admin/stocks/sync').expect(401);
    await request(t.http).get('/api/v1/admin/stocks/sync/status').expect(401);
  });
});
