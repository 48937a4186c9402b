import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { type DartSandbox, startDartSandbox } from '../../../local/dart-sandbox/dart-sandbox';
import { DART_PRIORITIES } from './dart-budget';
import { DartClient, type DartClientConfig, type DartClientOptions } from './dart-client';
import { type CorpCodeEntry, DartError, type DartFiling } from './dart.types';
import { rejectionOf } from '../../../local/doubles/rejection';
import { eventually } from '../../../test/support/eventually';
import { FakeClock, settle } from '../../../test/support/fake-clock';

const TODAY = new Date('2026-03-10T03:00:00Z'); // Tuesday 12:00 in Korea

/** Collects the client's warnings, so tests can read them (and check the key never appears). */
class CapturedLog {
  readonly warnings: string[] = [];
  readonly errors: string[] = [];
  warn(message: unknown): void {
    this.warnings.push(String(message));
  }
  error(message: unknown): void {
    this.errors.push(String(message));
  }
}

function clientFor(
  sandbox: DartSandbox,
  config: Partial<DartClientConfig> = {},
  options: DartClientOptions = {},
): { client: DartClient; log: CapturedLog } {
  const log = new CapturedLog();
  const client = new DartClient(
    {
      baseUrl: sandbox.baseUrl,
      apiKey: sandbox.apiKey,
      requestsPerMinute: 1000,
      requestsPerDay: 100_000,
      timeoutMs: 5_000,
      maxAttempts: 4,
      retryBaseMs: 1,
      ...config,
    },
    { logger: log, ...options },
  );
  return { client, log };
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

const failureOf = (promise: Promise<unknown>) => rejectionOf(promise, DartError);

/** A clock that jumps forward whenever the client sleeps, and the sleeps it was asked for: a minute passes in no time. */
function jumpingClock(): { time: FakeClock; sleeps: number[] } {
  const sleeps: number[] = [];
  const time = new (class extends FakeClock {
    override sleep(ms: number): Promise<void> {
      sleeps.push(ms);
      this.advance(ms);
      return Promise.resolve();
    }
  })();
  return { time, sleeps };
}

describe('DartClient against the sandbox', () => {
  describe('list.json', () => {
    let sandbox: DartSandbox;
    let published: DartFiling[];

    beforeAll(async () => {
      // No generated filings: exactly the 250 the test publishes today.
      sandbox = await startDartSandbox({ seed: 7, companyCount: 300, filingsPerBusinessDay: 0, now: () => TODAY, apiKey: 'list-key' });
      for (let i = 0; i < 250; i++) sandbox.control.publishFiling();
      published = [...sandbox.control.filings()];
    });
    afterAll(() => sandbox.close());
    beforeEach(() => sandbox.control.clearRequests());

    it('maps the query to the upstream parameters and the answer to a page', async () => {
      const { client } = clientFor(sandbox);
      const company = published[0].corp_code;
      const page = await client.listPage(
        {
          corpCode: company,
          bgnDe: '20260101',
          endDe: '20260310',
          corpCls: published[0].corp_cls,
          lastReprtAt: 'N',
          pageNo: 1,
          pageCount: 5,
        },
        'adminFetch',
      );

      expect(sandbox.control.requests[0].query).toEqual({
        crtfc_key: 'list-key',
        corp_code: company,
        bgn_de: '20260101',
        end_de: '20260310',
        corp_cls: published[0].corp_cls,
        last_reprt_at: 'N',
        page_no: '1',
        page_count: '5',
      });
      const ofCompany = published.filter((filing) => filing.corp_code === company);
      expect(page).toEqual({
        pageNo: 1,
        pageCount: 5,
        totalCount: ofCompany.length,
        totalPage: Math.ceil(ofCompany.length / 5),
        items: ofCompany.slice(0, 5),
      });
    });

    it('pages through 250 filings 100 at a time: 3 requests, every row once, newest first', async () => {
      const { client } = clientFor(sandbox);
      const rows = await collect(client.listFilings({}, { priority: 'monitor' }));

      expect(rows).toEqual(published);
      expect(new Set(rows.map((row) => row.rcept_no)).size).toBe(250);
      const pages = sandbox.control.requests.map((request) => [request.query.page_no, request.query.page_count]);
      expect(pages).toEqual([
        ['1', '100'],
        ['2', '100'],
        ['3', '100'],
      ]);
    });

    it('stops at the first filing `until` accepts, without yielding it or fetching further pages', async () => {
      const { client } = clientFor(sandbox);
      const known = published[149].rcept_no;
      const rows = await collect(client.listFilings({}, { priority: 'monitor', until: (filing) => filing.rcept_no === known }));

      expect(rows).toEqual(published.slice(0, 149));
      expect(sandbox.control.requests).toHaveLength(2);

      sandbox.control.clearRequests();
      const firstPageOnly = await collect(
        client.listFilings({}, { priority: 'monitor', until: (filing) => filing.rcept_no === published[10].rcept_no }),
      );
      expect(firstPageOnly).toHaveLength(10);
      expect(sandbox.control.requests).toHaveLength(1);
    });

    it('does not repeat a row that a filing published between two pages pushed onto the next page', async () => {
      const { client } = clientFor(sandbox);
      const seen: DartFiling[] = [];
      let fresh: DartFiling | undefined;
      for await (const filing of client.listFilings({}, { priority: 'monitor' })) {
        seen.push(filing);
        // Published while the consumer is on page 1: every older row moves one place down.
        if (seen.length === 1) fresh = sandbox.control.publishFiling();
      }
      expect(seen.map((row) => row.rcept_no)).toEqual(published.map((row) => row.rcept_no));
      expect(seen.some((row) => row.rcept_no === fresh!.rcept_no)).toBe(false);
      published = [...sandbox.control.filings()];
    });

    it('treats 013 (no data) as an empty page and an empty listing', async () => {
      const { client } = clientFor(sandbox);
      await expect(client.listPage({ bgnDe: '20260201', endDe: '20260228', pageNo: 2, pageCount: 50 }, 'adminFetch')).resolves.toEqual({
        pageNo: 2,
        pageCount: 50,
        totalCount: 0,
        totalPage: 0,
        items: [],
      });
      expect(await collect(client.listFilings({ bgnDe: '20260201', endDe: '20260228' }, { priority: 'monitor' }))).toEqual([]);
      expect(sandbox.control.requests).toHaveLength(2);
    });

    it('turns the 3-month rule (status 100) into a request error without retrying', async () => {
      const { client } = clientFor(sandbox);
      const error = await failureOf(client.listPage({ bgnDe: '20251101', endDe: '20260310' }, 'adminFetch'));
      expect(error.kind).toBe('request');
      expect(error.status).toBe('100');
      expect(sandbox.control.requests).toHaveLength(1);

      // With a company any range is allowed.
      const page = await client.listPage({ corpCode: published[0].corp_code, bgnDe: '20250101', endDe: '20260310' }, 'adminFetch');
      expect(page.totalCount).toBeGreaterThan(0);
    });
  });

  describe('errors and retries', () => {
    let sandbox: DartSandbox;
    beforeAll(async () => {
      sandbox = await startDartSandbox({ seed: 3, companyCount: 300, filingsPerBusinessDay: 5, now: () => TODAY });
    });
    afterAll(() => sandbox.close());
    beforeEach(() => {
      sandbox.control.clearRequests();
      sandbox.control.setKeyStatus(null);
    });

    it('retries 900 with backoff and succeeds, warning with status and attempt but never the key', async () => {
      sandbox.control.failNext(2, '900');
      const { time, sleeps } = jumpingClock();
      // Half the jitter there can be: 10 % on top.
      const { client, log } = clientFor(sandbox, { retryBaseMs: 20 }, { time, random: () => 0.5 });
      const page = await client.listPage({}, 'adminFetch');

      expect(page.items.length).toBeGreaterThan(0);
      expect(sandbox.control.requests).toHaveLength(3);
      // 20 ms then 40 ms, each with its jitter.
      expect(sleeps).toEqual([22, 44]);
      expect(log.warnings).toHaveLength(2);
      expect(log.warnings[0]).toContain('900');
      expect(log.warnings[0]).toContain('attempt 1 of 4');
      expect(log.warnings[1]).toContain('attempt 2 of 4');
      expect(log.warnings.join('\n')).not.toContain(sandbox.apiKey);
    });

    it('retries 800 too', async () => {
      sandbox.control.failNext(2, '800');
      const { client } = clientFor(sandbox);
      await expect(client.listPage({}, 'adminFetch')).resolves.toMatchObject({ pageNo: 1 });
      expect(sandbox.control.requests).toHaveLength(3);
    });

    it('gives up on a lasting 900 after maxAttempts attempts with a transient error', async () => {
      sandbox.control.setKeyStatus('900');
      const { client } = clientFor(sandbox, { maxAttempts: 3 });
      const error = await failureOf(client.listPage({}, 'adminFetch'));
      expect(error).toMatchObject({ kind: 'transient', status: '900' });
      expect(error.message).toContain('3 attempts');
      expect(sandbox.control.requests).toHaveLength(3);
    });

    it('stops at once on 020 (the allowance is spent) and calls nobody again until the next KST day', async () => {
      let wall = TODAY; // 12:00 KST
      const { client, log } = clientFor(sandbox, {}, { wallClock: () => wall });
      sandbox.control.setKeyStatus('020');
      const error = await failureOf(client.listPage({}, 'adminFetch'));
      // Never retried: asking again would only hammer a spent key.
      expect(error).toMatchObject({ kind: 'budget', status: '020', retryAfterMs: 12 * 3_600_000 });
      expect(sandbox.control.requests).toHaveLength(1);
      expect(log.errors.join('\n')).toContain('2026-03-10T15:00:00.000Z');
      expect(log.errors.join('\n')).not.toContain(sandbox.apiKey);

      // The upstream is fine again, but our budget stays closed for the rest of the KST day.
      sandbox.control.setKeyStatus(null);
      for (const priority of DART_PRIORITIES) {
        expect(await failureOf(client.company('00100001', priority))).toMatchObject({ kind: 'budget', status: 'DAILY_LIMIT' });
      }
      expect(sandbox.control.requests).toHaveLength(1);
      expect(client.budgetStatus()).toMatchObject({ usedToday: 1, exhaustedUntil: '2026-03-10T15:00:00.000Z' });

      wall = new Date('2026-03-10T15:00:00Z'); // midnight in Korea
      await expect(client.listPage({}, 'adminFetch')).resolves.toMatchObject({ pageNo: 1 });
      expect(client.budgetStatus()).toMatchObject({ usedToday: 1, exhaustedUntil: null });
    });

    it('counts every request, retries included, against DART_REQUESTS_PER_DAY, and refuses the next without calling', async () => {
      const { client } = clientFor(sandbox, { requestsPerDay: 3 }, { wallClock: () => TODAY });
      sandbox.control.failNext(1, '900');
      await client.listPage({}, 'adminFetch'); // two requests
      await client.listPage({}, 'monitor');
      const refused = await failureOf(client.listPage({}, 'monitor'));
      expect(refused).toMatchObject({ kind: 'budget', status: 'DAILY_LIMIT', retryAfterMs: 12 * 3_600_000 });
      expect(sandbox.control.requests).toHaveLength(3);
      expect(client.budgetStatus()).toMatchObject({ dailyLimit: 3, usedToday: 3, exhaustedUntil: '2026-03-10T15:00:00.000Z' });
    });

    it('stops at once on a suspended key (011): configuration error, exactly one request', async () => {
      sandbox.control.setKeyStatus('011');
      const { client, log } = clientFor(sandbox);
      const error = await failureOf(client.listPage({}, 'adminFetch'));
      expect(error).toMatchObject({ kind: 'configuration', status: '011' });
      expect(sandbox.control.requests).toHaveLength(1);
      expect(log.warnings).toEqual([]);
    });

    it('reports an unknown key (010) as a configuration error without the key in the message', async () => {
      const { client } = clientFor(sandbox, { apiKey: 'not-the-key-0123456789' });
      const error = await failureOf(client.company('00100001', 'companyRead'));
      expect(error).toMatchObject({ kind: 'configuration', status: '010' });
      expect(error.message).not.toContain('not-the-key-0123456789');
      expect(sandbox.control.requests).toHaveLength(1);
    });

    it('refuses to call without a key', async () => {
      const { client } = clientFor(sandbox, { apiKey: undefined });
      expect(await failureOf(client.listPage({}, 'adminFetch'))).toMatchObject({ kind: 'configuration', status: 'NO_KEY' });
      expect(sandbox.control.requests).toHaveLength(0);
    });

    it('retries an HTTP 500 and gives up on a lasting one as transient', async () => {
      sandbox.control.failNext(1, 'http500');
      const { client } = clientFor(sandbox, { maxAttempts: 2 });
      await expect(client.listPage({}, 'adminFetch')).resolves.toMatchObject({ pageNo: 1 });
      expect(sandbox.control.requests).toHaveLength(2);

      sandbox.control.failNext(2, 'http500');
      expect(await failureOf(client.listPage({}, 'adminFetch'))).toMatchObject({ kind: 'transient', status: 'HTTP 500' });
    });

    it('times out a call that never answers and retries it', async () => {
      sandbox.control.failNext(1, 'hang');
      const { client, log } = clientFor(sandbox, { timeoutMs: 200 });
      const started = Date.now();
      await expect(client.listPage({}, 'adminFetch')).resolves.toMatchObject({ pageNo: 1 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(190);
      expect(sandbox.control.requests).toHaveLength(2);
      expect(log.warnings[0]).toContain('TIMEOUT');

      sandbox.control.failNext(2, 'hang');
      const { client: impatient } = clientFor(sandbox, { timeoutMs: 200, maxAttempts: 2 });
      expect(await failureOf(impatient.listPage({}, 'adminFetch'))).toMatchObject({ kind: 'transient', status: 'TIMEOUT' });
    });

    it('retries network failures and reports them as transient, without the key', async () => {
      const port = await closedPort();
      const { client, log } = clientFor(sandbox, { baseUrl: `http://127.0.0.1:${port}/api`, maxAttempts: 2 });
      const error = await failureOf(client.listPage({}, 'adminFetch'));
      expect(error).toMatchObject({ kind: 'transient', status: 'NETWORK' });
      expect(error.message).not.toContain(sandbox.apiKey);
      expect(log.warnings).toHaveLength(1);
    });

    it('reports other statuses (021, 101, 014, 100) as request errors without retrying', async () => {
      const { client } = clientFor(sandbox);
      for (const status of ['021', '101', '014']) {
        sandbox.control.setKeyStatus(status);
        expect(await failureOf(client.listPage({}, 'adminFetch'))).toMatchObject({ kind: 'request', status });
      }
      expect(sandbox.control.requests).toHaveLength(3);
      sandbox.control.setKeyStatus(null);
      expect(await failureOf(client.listPage({ pageCount: 101 }, 'adminFetch'))).toMatchObject({ kind: 'request', status: '100' });
    });

    it('counts retries against the per-minute budget and waits instead of failing when it is spent', async () => {
      const { time, sleeps } = jumpingClock();
      const { client } = clientFor(sandbox, { requestsPerMinute: 2, retryBaseMs: 10 }, { time, random: () => 0 });

      sandbox.control.failNext(1, '900');
      await client.listPage({}, 'adminFetch'); // two requests: the budget of this minute is spent
      expect(sleeps).toEqual([10]);
      await client.company(sandbox.control.companiesIn('Y')[0].corpCode, 'stockSync');

      // The third request had to wait until the first one left the 60-second window.
      expect(sandbox.control.requests).toHaveLength(3);
      expect(sleeps).toEqual([10, 60_000 - 10]);
      expect(time.monotonicMs()).toBe(60_000);
    });
  });

  describe("a caller's deadline (deadlineMs, on the client's clock)", () => {
    let sandbox: DartSandbox;
    let code: string;
    beforeAll(async () => {
      sandbox = await startDartSandbox({ seed: 4, companyCount: 300, filingsPerBusinessDay: 5, now: () => TODAY });
      code = sandbox.control.companiesIn('Y')[0].corpCode;
    });
    afterAll(() => sandbox.close());
    beforeEach(() => sandbox.control.clearRequests());

    /** The outcome of `call` once it settles; `settled` says whether it has. */
    function watch<T>(call: Promise<T>): { outcome: Promise<DartError>; settled: () => boolean } {
      let done = false;
      const outcome = failureOf(call.finally(() => (done = true)));
      return { outcome, settled: () => done };
    }

    it('ends a call that never answers when the deadline passes, aborting the request, without retrying it', async () => {
      const time = new FakeClock();
      // A request timeout far beyond the deadline: only the deadline can end this call.
      const { client } = clientFor(sandbox, { timeoutMs: 300_000 }, { time });
      sandbox.control.failNext(1, 'hang', 'company.json');
      const call = watch(client.company(code, 'companyRead', { deadlineMs: 3_000 }));
      await eventually(() => sandbox.control.requests.length === 1);

      time.advance(2_999);
      await settle();
      expect(call.settled()).toBe(false);
      time.advance(1);
      expect(await call.outcome).toMatchObject({ kind: 'transient', status: 'DEADLINE' });
      expect((await call.outcome).message).toContain('3000 ms');
      expect(sandbox.control.requests).toHaveLength(1);
    });

    it('retries within the deadline', async () => {
      const time = new FakeClock();
      const { client } = clientFor(sandbox, { retryBaseMs: 100 }, { time, random: () => 0 });
      sandbox.control.failNext(1, '900', 'company.json');
      // A priority that waits for the budget with no bound of its own: the clock's only sleepers are this call's.
      const call = client.company(code, 'adminFetch', { deadlineMs: 5_000 });
      // The deadline's timer and the 100 ms before the second attempt.
      await eventually(() => time.pendingSleeps() === 2);
      time.advance(100);
      await expect(call).resolves.toMatchObject({ corp_code: code });
      expect(sandbox.control.requests).toHaveLength(2);
    });

    it('does not begin a wait for a retry that would end past the deadline: the failure is answered at once', async () => {
      const time = new FakeClock();
      const { client, log } = clientFor(sandbox, { retryBaseMs: 10_000 }, { time, random: () => 0 });
      sandbox.control.failNext(1, '800', 'company.json');
      const error = await failureOf(client.company(code, 'companyRead', { deadlineMs: 5_000 }));
      expect(error).toMatchObject({ kind: 'transient', status: '800' });
      expect(error.message).toContain('no time left');
      expect(sandbox.control.requests).toHaveLength(1);
      expect(time.monotonicMs()).toBe(0);
      expect(log.warnings).toEqual([]);
    });

    it('bounds the wait for the budget too; the slot granted later is left unused', async () => {
      const time = new FakeClock();
      const { client } = clientFor(sandbox, { requestsPerMinute: 1 }, { time });
      await client.company(code, 'adminFetch'); // the minute's one slot
      // adminFetch would wait for the next minute; the deadline ends the wait first.
      const call = watch(client.company(code, 'adminFetch', { deadlineMs: 1_000 }));
      await eventually(() => client.budgetStatus().waiting === 1);
      time.advance(1_000);
      expect(await call.outcome).toMatchObject({ kind: 'transient', status: 'DEADLINE' });

      await time.elapse(60_000);
      expect(client.budgetStatus().waiting).toBe(0);
      expect(sandbox.control.requests).toHaveLength(1);
    });

    it('leaves a call without a deadline to its own timeout and attempts', async () => {
      const time = new FakeClock();
      const { client } = clientFor(sandbox, { timeoutMs: 200, maxAttempts: 2 }, { time });
      sandbox.control.failNext(1, 'hang', 'company.json');
      const call = client.company(code, 'adminFetch');
      // The first attempt times out on its own (real) timeout, then the retry waits on the client's clock.
      await eventually(() => time.pendingSleeps() === 1);
      time.advance(time.nextWakeAt()!);
      await expect(call).resolves.toMatchObject({ corp_code: code });
      expect(sandbox.control.requests).toHaveLength(2);
    });
  });

  describe('corpCode.xml', () => {
    let sandbox: DartSandbox;
    let tempRoot: string;
    beforeAll(async () => {
      sandbox = await startDartSandbox({ seed: 11, companyCount: 20_000, filingsPerBusinessDay: 5, now: () => TODAY });
      tempRoot = await mkdtemp(path.join(tmpdir(), 'dart-client-spec-'));
    });
    afterAll(async () => {
      await sandbox.close();
      await rm(tempRoot, { recursive: true, force: true });
    });
    beforeEach(() => {
      sandbox.control.clearRequests();
      sandbox.control.setKeyStatus(null);
    });

    it('streams every entry with trimmed names, unescaped ampersands and null stock codes, then removes its temp file', async () => {
      const { client } = clientFor(sandbox, {}, { tempDir: tempRoot });
      await sandbox.control.corpCodeZip(); // built beforehand so the sandbox's own work is not measured
      const before = process.memoryUsage().heapUsed;
      let peak = before;
      const entries = new Map<string, CorpCodeEntry>();
      let count = 0;
      for await (const entry of client.corpCodes('stockSync')) {
        count++;
        entries.set(entry.corpCode, entry);
        if (count % 1_000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
      }

      const companies = sandbox.control.companies();
      expect(count).toBe(20_000);
      expect(entries.size).toBe(20_000);
      const mismatches = companies.filter((company) => {
        const entry = entries.get(company.corpCode);
        return (
          entry?.corpName !== company.corpName.trim() ||
          entry.corpEngName !== company.corpEngName.trim() ||
          entry.stockCode !== (company.market === 'unlisted' ? null : company.stockCode) ||
          entry.modifyDate !== company.modifyDate
        );
      });
      expect(mismatches).toEqual([]);
      const names = [...entries.values()].map((entry) => entry.corpName);
      expect(names).toEqual(expect.arrayContaining(['KT&G', '100%바이오', 'A_B테크', 'Alpha Tech', 'ALPHA TECH', '한결건설']));
      expect([...entries.values()].filter((entry) => entry.stockCode !== null)).toHaveLength(
        companies.filter((company) => company.market !== 'unlisted').length,
      );
      expect(sandbox.control.requests).toHaveLength(1);
      expect(await readdir(tempRoot)).toEqual([]);
      // The entries kept by this test take a few MB; a reader holding the whole document would add far more.
      expect(peak - before).toBeLessThan(64 * 1024 * 1024);
    });

    it('removes its temp file when the reader stops early', async () => {
      const { client } = clientFor(sandbox, {}, { tempDir: tempRoot });
      let read = 0;
      for await (const _entry of client.corpCodes('stockSync')) {
        if (++read === 10) break;
      }
      expect(read).toBe(10);
      expect(await readdir(tempRoot)).toEqual([]);
    });

    it('reads the XML error body of a suspended key as a configuration error, with one request and no temp file left', async () => {
      sandbox.control.setKeyStatus('011');
      const { client } = clientFor(sandbox, {}, { tempDir: tempRoot });
      const error = await failureOf(collect(client.corpCodes('stockSync')));
      expect(error).toMatchObject({ kind: 'configuration', status: '011' });
      expect(error.message).toContain('사용할 수 없는 키');
      expect(sandbox.control.requests).toHaveLength(1);
      expect(await readdir(tempRoot)).toEqual([]);
    });

    it('retries an XML 900 body and a hanging download', async () => {
      sandbox.control.failNext(1, '900');
      sandbox.control.failNext(1, 'hang');
      const { client } = clientFor(sandbox, { timeoutMs: 1_000 }, { tempDir: tempRoot });
      let count = 0;
      for await (const _entry of client.corpCodes('stockSync')) count++;
      expect(count).toBe(20_000);
      expect(sandbox.control.requests).toHaveLength(3);
    });
  });

  describe('company.json', () => {
    let sandbox: DartSandbox;
    beforeAll(async () => {
      sandbox = await startDartSandbox({ seed: 5, companyCount: 300, filingsPerBusinessDay: 5, now: () => TODAY });
    });
    afterAll(() => sandbox.close());

    it('returns a listed company with its board and stock code', async () => {
      const { client } = clientFor(sandbox);
      const listed = sandbox.control.companiesIn('K')[0];
      const company = await client.company(listed.corpCode, 'companyRead');
      expect(company).toMatchObject({
        corp_code: listed.corpCode,
        corp_name: listed.corpName,
        corp_cls: 'K',
        stock_code: listed.stockCode,
      });
      expect(Object.keys(company!).sort()).toEqual(
        [
          'corp_code',
          'corp_name',
          'corp_name_eng',
          'stock_name',
          'stock_code',
          'ceo_nm',
          'corp_cls',
          'jurir_no',
          'bizr_no',
          'adres',
          'hm_url',
          'ir_url',
          'phn_no',
          'fax_no',
          'induty_code',
          'est_dt',
          'acc_mt',
        ].sort(),
      );
    });

    it('returns a delisted company as class E with its old stock code', async () => {
      const { client } = clientFor(sandbox);
      const delisted = sandbox.control.companiesIn('delisted')[0];
      await expect(client.company(delisted.corpCode, 'companyRead')).resolves.toMatchObject({
        corp_cls: 'E',
        stock_code: delisted.stockCode,
      });
    });

    it('returns null for a company OpenDART does not know (013)', async () => {
      const { client } = clientFor(sandbox);
      await expect(client.company('99999999', 'companyRead')).resolves.toBeNull();
    });
  });
});

describe('DartClient.document against the sandbox', () => {
  let sandbox: DartSandbox;
  /** A filing with a generated document, and one the sandbox answers 014 for. */
  let served: string;
  let missing: string;
  beforeAll(async () => {
    sandbox = await startDartSandbox({ seed: 13, companyCount: 300, filingsPerBusinessDay: 10, now: () => TODAY, apiKey: 'document-key' });
    const filings = sandbox.control.filings();
    served = filings.find((filing) => sandbox.control.documentOf(filing.rcept_no)?.kind === 'long')!.rcept_no;
    missing = filings.find((filing) => sandbox.control.documentOf(filing.rcept_no)?.kind === 'missing')!.rcept_no;
  });
  afterAll(() => sandbox.close());
  beforeEach(() => {
    sandbox.control.clearRequests();
    sandbox.control.setKeyStatus(null);
  });

  it('returns the ZIP as served, with one request carrying the key and the receipt number', async () => {
    const { client } = clientFor(sandbox);
    const zip = await client.document(served, 'analysisDocument');

    expect(zip.subarray(0, 2).toString('latin1')).toBe('PK');
    expect(zip.equals((await sandbox.control.documentZip(served))!)).toBe(true);
    expect(sandbox.control.requests).toEqual([
      { path: '/api/document.xml', query: { crtfc_key: 'document-key', rcept_no: served }, at: expect.any(Date) },
    ]);
  });

  it('throws a `missing` error on 014 after exactly one request, without retrying or warning', async () => {
    const { client, log } = clientFor(sandbox);
    const error = await failureOf(client.document(missing, 'analysisDocument'));
    expect(error).toMatchObject({ kind: 'missing', status: '014' });
    expect(error.message).toContain(missing);
    expect(sandbox.control.requests).toHaveLength(1);
    expect(log.warnings).toEqual([]);

    // A document a test removed answers the same.
    const removed = sandbox.control.filings()[0].rcept_no;
    sandbox.control.setDocument(removed, null);
    expect(await failureOf(client.document(removed, 'analysisDocument'))).toMatchObject({ kind: 'missing', status: '014' });
    expect(sandbox.control.requests).toHaveLength(2);
  });

  it('retries 900 and a hanging download under the same rules as the other calls; an XML 020 closes the budget', async () => {
    sandbox.control.failNext(2, '900', 'document.xml');
    const { client, log } = clientFor(sandbox);
    await expect(client.document(served, 'analysisDocument')).resolves.toBeInstanceOf(Buffer);
    expect(sandbox.control.requests).toHaveLength(3);
    expect(log.warnings).toHaveLength(2);
    expect(log.warnings[0]).toContain('document.xml: 900 on attempt 1 of 4');

    sandbox.control.clearRequests();
    sandbox.control.failNext(1, 'hang', 'document.xml');
    const { client: impatient } = clientFor(sandbox, { timeoutMs: 200 });
    await expect(impatient.document(served, 'analysisDocument')).resolves.toBeInstanceOf(Buffer);
    expect(sandbox.control.requests).toHaveLength(2);

    sandbox.control.clearRequests();
    sandbox.control.setKeyStatus('020');
    expect(await failureOf(clientFor(sandbox).client.document(served, 'analysisDocument'))).toMatchObject({
      kind: 'budget',
      status: '020',
    });
    expect(sandbox.control.requests).toHaveLength(1);
    sandbox.control.setKeyStatus(null);
  });

  it('reads the other statuses of the XML body as the other calls do', async () => {
    const { client } = clientFor(sandbox);
    sandbox.control.setKeyStatus('011');
    expect(await failureOf(client.document(served, 'analysisDocument'))).toMatchObject({ kind: 'configuration', status: '011' });
    sandbox.control.setKeyStatus(null);
    // The sandbox checks the receipt number as the upstream does (status 100).
    expect(await failureOf(client.document('2026', 'analysisDocument'))).toMatchObject({ kind: 'request', status: '100' });
    expect(sandbox.control.requests).toHaveLength(2);
  });

  it('refuses an answer larger than maxDocumentBytes without retrying', async () => {
    const size = (await sandbox.control.documentZip(served))!.length;
    const { client } = clientFor(sandbox, {}, { maxDocumentBytes: size - 1 });
    const error = await failureOf(client.document(served, 'analysisDocument'));
    expect(error).toMatchObject({ kind: 'request', status: 'TOO_LARGE' });
    expect(error.message).toContain(String(size - 1));
    expect(sandbox.control.requests).toHaveLength(1);

    const { client: roomy } = clientFor(sandbox, {}, { maxDocumentBytes: size });
    await expect(roomy.document(served, 'analysisDocument')).resolves.toHaveLength(size);
  });

  it('bounds a body sent without Content-Length as it arrives, and rejects a body that is neither ZIP nor status', async () => {
    /** Whether each answer was written to its end. */
    const completed: boolean[] = [];
    let body = 'zip';
    const server = createHttpServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/x-msdownload' });
      if (body === 'garbage') {
        res.end('<html>maintenance page</html>');
        return;
      }
      // Chunked: the size is only known by counting. 'PK' and 64 chunks of 1 KB, one every few ms.
      const answer = completed.push(false) - 1;
      res.write('PK');
      let sent = 0;
      const timer = setInterval(() => {
        if (res.destroyed || sent === 64) {
          clearInterval(timer);
          completed[answer] = sent === 64;
          res.end();
          return;
        }
        res.write(Buffer.alloc(1024, 0x41));
        sent++;
      }, 2);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/api`;
      const { client } = clientFor(sandbox, { baseUrl }, { maxDocumentBytes: 8 * 1024 });
      expect(await failureOf(client.document(served, 'analysisDocument'))).toMatchObject({ kind: 'request', status: 'TOO_LARGE' });

      const { client: roomy } = clientFor(sandbox, { baseUrl }, { maxDocumentBytes: 128 * 1024 });
      expect((await roomy.document(served, 'analysisDocument')).length).toBe(2 + 64 * 1024);
      // The refused download was abandoned early, not read to its end.
      expect(completed).toEqual([false, true]);

      body = 'garbage';
      expect(await failureOf(roomy.document(served, 'analysisDocument'))).toMatchObject({ kind: 'request', status: 'UNPARSABLE' });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
