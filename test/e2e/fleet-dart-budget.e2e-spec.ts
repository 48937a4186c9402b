import request from 'supertest';
import { type DartSandbox, startDartSandbox } from '../../local/dart-sandbox/dart-sandbox';
import type { SlotAnswer } from '../../src/upstream/dart/request-budget';
import type { Clock } from '../../src/common/clock';
import { DartClient } from '../../src/upstream/dart/dart-client';
import { DART_BUDGET, DART_BUDGET_TIME } from '../../src/upstream/dart/dart.module';
import type { PostgresDartBudget } from '../../src/upstream/dart/postgres-dart-budget';
import { FakeClock } from '../support/fake-clock';
import { ADMIN_KEY } from '../support/sandboxed-app';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

const MINUTE = 60_000;
/** Friday 2026-11-20, 12:00 in Korea. */
const NOON_KST = new Date('2026-11-20T03:00:00Z');
const NEXT_KST_MIDNIGHT = new Date('2026-11-20T15:00:00Z');

interface Fleet {
  sandbox: DartSandbox;
  instances: TestApp[];
  close(): Promise<void>;
}

/** `count` instances of the app on one database and one disclosure-system sandbox. */
async function startFleet(count: number, env: Record<string, string>, time?: Clock, companyCount = 400): Promise<Fleet> {
  const clock = new FakeClock(NOON_KST);
  const sandbox = await startDartSandbox({ companyCount, seed: 7, now: () => clock.now() });
  const instances: TestApp[] = [];
  for (let i = 0; i < count; i++) {
    instances.push(
      await startTestApp({
        rateLimits: RELAXED_RATE_LIMITS,
        clock,
        database: instances[0]?.database,
        overrides: time ? [{ provide: DART_BUDGET_TIME, useValue: time }] : [],
        env: {
          ADMIN_KEY,
          DART_API_BASE_URL: sandbox.baseUrl,
          DART_API_KEY: sandbox.apiKey,
          DART_MAX_ATTEMPTS: '1',
          DART_TIMEOUT_MS: '5000',
          DISCLOSURE_MONITOR_AUTO_START: 'false',
          ...env,
        },
      }),
    );
  }
  return {
    sandbox,
    instances,
    close: async () => {
      // The first instance owns (and drops) the database: it goes last.
      for (const instance of [...instances].reverse()) await instance.close();
      await sandbox.close();
    },
  };
}

const fetchPage = (t: TestApp) =>
  request(t.http)
    .post('/api/v1/admin/disclosures/fetch')
    .set('X-Admin-Key', ADMIN_KEY)
    .query({ beginDate: '20261119', endDate: '20261119' });

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await pause(10);
  }
}

describe('the disclosure-system budget shared by a fleet of three instances', () => {
  describe('DART_REQUESTS_PER_MINUTE=60, every instance busy at once (virtual time shared by the fleet)', () => {
    // Virtual time shared by every instance of the fleet, moved by the test in jumps to the next waiter's
    // deadline with the synchronous `advance`, so nothing can read the old time after the test moved it.
    const time = new FakeClock();
    let fleet: Fleet;
    /** Grants of the shared budget and questions in flight, over the whole fleet. */
    let granted = 0;
    let asking = 0;

    beforeAll(async () => {
      fleet = await startFleet(3, { DART_REQUESTS_PER_MINUTE: '60' }, time, 1_000);
      const codes = fleet.sandbox.control.companies().map((company) => company.corpCode);
      await fleet.instances[0].dataSource.query(
        `INSERT INTO corp_codes (corp_code, corp_name) SELECT code, 'name' FROM unnest($1::text[]) AS code ON CONFLICT DO NOTHING`,
        [codes],
      );
      // Counts what each instance's line is told by the database.
      for (const instance of fleet.instances) {
        const budget = instance.app.get<PostgresDartBudget>(DART_BUDGET);
        const take = budget.take.bind(budget);
        budget.take = async (rank: number): Promise<SlotAnswer> => {
          asking++;
          try {
            const answer = await take(rank);
            if (answer.granted) granted++;
            return answer;
          } finally {
            asking--;
          }
        };
      }
    }, 60_000);
    afterAll(() => fleet?.close());

    it('never lets the sandbox see more than 60 requests in any rolling minute, and uses all 60 every minute', async () => {
      const { sandbox, instances } = fleet;
      const companies = sandbox.control.companies().map((company) => company.corpCode);
      const before = sandbox.control.requests.length;
      /** The virtual time each request reached the sandbox, in arrival order. */
      const arrivals: number[] = [];
      let stopped = false;
      const answers: Record<number, number> = {};
      const count = (res: request.Response) => {
        answers[res.status] = (answers[res.status] ?? 0) + 1;
      };

      // On every instance: operators' fetches (may use the whole minute) and anonymous company reads
      // (leave the last 10 % and give up after 2 s), several at once.
      let nextCompany = 0;
      const loops = instances.flatMap((t) => [
        ...Array.from({ length: 3 }, async () => {
          while (!stopped) count(await fetchPage(t));
        }),
        ...Array.from({ length: 4 }, async () => {
          while (!stopped) count(await request(t.http).get(`/api/v1/companies/${companies[nextCompany++ % companies.length]}`));
        }),
      ]);

      let finished = false;
      const allDone = Promise.all(loops).then(() => {
        finished = true;
      });

      // Virtual time moves only when the fleet is still: no question to the database in flight and every
      // granted request arrived. So every arrival since the last jump happened at the current virtual time.
      let still = 0;
      while (!finished) {
        await pause(5);
        const seen = sandbox.control.requests.length - before;
        if (asking > 0 || seen !== granted) {
          still = 0;
          continue;
        }
        // Still twice in a row: what a loop does between an answer and its next request has run too.
        if (++still < 2) continue;
        still = 0;
        while (arrivals.length < seen) arrivals.push(time.monotonicMs());
        if (time.monotonicMs() >= 3 * MINUTE) stopped = true;
        time.advance((time.nextWakeAt() ?? time.monotonicMs() + 1_000) - time.monotonicMs());
      }
      await allDone;
      const seen = sandbox.control.requests.length - before;
      while (arrivals.length < seen) arrivals.push(time.monotonicMs());

      // Every rolling window [t, t + 60 s) starting at an arrival.
      let busiest = 0;
      for (let i = 0; i < arrivals.length; i++) {
        let j = i;
        while (j < arrivals.length && arrivals[j] < arrivals[i] + MINUTE) j++;
        busiest = Math.max(busiest, j - i);
      }
      expect(busiest).toBe(60);
      // The fleet used its 60 in each of the first three minutes: demand never let a slot go idle.
      for (let minute = 0; minute < 3; minute++) {
        expect(arrivals.filter((at) => at >= minute * MINUTE && at < (minute + 1) * MINUTE)).toHaveLength(60);
      }
      expect(granted).toBe(seen);
      // Both kinds were served; the reads that found no slot within 2 s got 503.
      expect(answers[201]).toBeGreaterThan(0);
      expect(answers[200]).toBeGreaterThan(0);
      expect(answers[503]).toBeGreaterThan(0);
      expect(Object.keys(answers).sort()).toEqual(['200', '201', '503']);
      for (const t of instances) expect(t.app.get(DartClient).budgetStatus()).toMatchObject({ minuteLimit: 60, waiting: 0 });
    }, 120_000);
  });

  describe("the minute's reserve (DART_REQUESTS_PER_MINUTE=10, two instances)", () => {
    let fleet: Fleet;

    beforeAll(async () => {
      fleet = await startFleet(2, { DART_REQUESTS_PER_MINUTE: '10' });
      const codes = fleet.sandbox.control.companies().map((company) => company.corpCode);
      await fleet.instances[0].dataSource.query(
        `INSERT INTO corp_codes (corp_code, corp_name) SELECT code, 'name' FROM unnest($1::text[]) AS code ON CONFLICT DO NOTHING`,
        [codes],
      );
    }, 60_000);
    afterAll(() => fleet?.close());

    it("keeps the last slot of the minute from one instance's public reads for an operator's fetch on another", async () => {
      const { sandbox, instances } = fleet;
      const [reader, operator] = instances;
      const codes = sandbox.control.companies().map((company) => company.corpCode);
      const before = sandbox.control.requests.length;
      const reads = Promise.all(codes.slice(0, 15).map((code) => request(reader.http).get(`/api/v1/companies/${code}`)));
      // Nine reads served; the others wait in the reader's line (for up to 2 s) for a slot they may not take.
      await waitFor(() => sandbox.control.requests.length - before === 9 && reader.app.get(DartClient).budgetStatus().waiting === 6);

      // Served at once, although the reads were waiting before it came: they may not take the last slot.
      await fetchPage(operator).expect(201);
      const answers = await reads;
      expect(answers.filter((res) => res.status === 200)).toHaveLength(9);
      expect(answers.filter((res) => res.status === 503)).toHaveLength(6);
      expect(sandbox.control.requests.length - before).toBe(10);
      expect(operator.app.get(DartClient).budgetStatus()).toMatchObject({ usedLastMinute: 10, minuteLimit: 10 });
    });
  });

  describe('the day (DART_REQUESTS_PER_DAY=12, two instances)', () => {
    let fleet: Fleet;

    beforeAll(async () => {
      fleet = await startFleet(2, { DART_REQUESTS_PER_DAY: '12' });
    }, 60_000);
    afterAll(() => fleet?.close());

    it('is shared: 20 simultaneous admin fetches over both instances make exactly 12 calls; the rest are 503 until the next KST day', async () => {
      const { sandbox, instances } = fleet;
      const before = sandbox.control.requests.length;
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => fetchPage(instances[i % 2])));

      expect(answers.filter((res) => res.status === 201)).toHaveLength(12);
      const refused = answers.filter((res) => res.status === 503);
      expect(refused).toHaveLength(8);
      for (const res of refused) {
        expect(res.body.code).toBe('UPSTREAM_BUSY');
        expect(Number(res.headers['retry-after'])).toBe((NEXT_KST_MIDNIGHT.getTime() - NOON_KST.getTime()) / 1000);
      }
      expect(sandbox.control.requests.length - before).toBe(12);
      for (const t of instances) {
        await fetchPage(t).expect(503);
        expect(t.app.get(DartClient).budgetStatus()).toMatchObject({ usedToday: 12, exhaustedUntil: NEXT_KST_MIDNIGHT.toISOString() });
      }

      instances[0].clock.set(new Date(NEXT_KST_MIDNIGHT.getTime() + 1_000));
      await fetchPage(instances[1]).expect(201);
      expect(instances[1].app.get(DartClient).budgetStatus()).toMatchObject({ usedToday: 1, exhaustedUntil: null });
      instances[0].clock.set(NOON_KST);
    });
  });

  describe('020 from the disclosure system (two instances)', () => {
    let fleet: Fleet;

    beforeAll(async () => {
      fleet = await startFleet(2, {});
    }, 60_000);
    afterAll(() => fleet?.close());

    it('on one instance closes the day on every instance: the other makes no call until the next KST day', async () => {
      const { sandbox, instances } = fleet;
      const [first, second] = instances;
      await fetchPage(second).expect(201);

      sandbox.control.setKeyStatus('020');
      const spent = await fetchPage(first).expect(503);
      expect(spent.body.code).toBe('UPSTREAM_BUSY');
      sandbox.control.setKeyStatus(null);
      const calls = sandbox.control.requests.length;

      const refused = await fetchPage(second).expect(503);
      expect(Number(refused.headers['retry-after'])).toBe((NEXT_KST_MIDNIGHT.getTime() - NOON_KST.getTime()) / 1000);
      expect(sandbox.control.requests).toHaveLength(calls);
      expect(second.app.get(DartClient).budgetStatus()).toMatchObject({ exhaustedUntil: NEXT_KST_MIDNIGHT.toISOString() });

      first.clock.set(new Date(NEXT_KST_MIDNIGHT.getTime() + 1_000));
      await fetchPage(second).expect(201);
      await fetchPage(first).expect(201);
      first.clock.set(NOON_KST);
    });
  });
});
