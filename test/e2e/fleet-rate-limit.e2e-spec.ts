import request from 'supertest';
import { RATE_LIMIT_STORES } from '../../src/rate-limit/rate-limit.config';
import { bearerFor, createUser } from '../support/fixtures';
import { startTestApp, TEST_CLIENT_IP_HEADER, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const INSTANCES = 3;
/** The specification's general limit: bursts of 10, refilled at 2 a second. */
const BURST = 10;
const REFILL_PER_SECOND = 2;

/**
 * Three instances of the service on one database, behind a (simulated) round-robin
 * load balancer, with the specification's real limits. With the buckets in
 * PostgreSQL a user's burst is 10 whichever instances serve it; with the buckets in
 * each process it is 10 per instance, 30 for the fleet.
 */
describe.each(RATE_LIMIT_STORES)('a fleet of three instances (RATE_LIMIT_STORE=%s)', (store) => {
  let database: TestDatabase;
  let fleet: TestApp[];
  let nextIp = 1;
  const freshIp = () => `198.51.100.${nextIp++}`;

  beforeAll(async () => {
    database = await createTestDatabase();
    fleet = [];
    for (let i = 0; i < INSTANCES; i++) fleet.push(await startTestApp({ database, env: { RATE_LIMIT_STORE: store } }));
  });
  afterAll(async () => {
    for (const app of fleet ?? []) await app.close();
    await database?.drop();
  });

  /** Request `i` goes to instance `i mod 3`, from a new address each time: the bucket is the user's. */
  const registerPushToken = (i: number, authorization: string) =>
    request(fleet[i % INSTANCES].http)
      .post('/api/v1/push/fcm-token')
      .set(TEST_CLIENT_IP_HEADER, freshIp())
      .set('Authorization', authorization)
      .send({ fcm_token: `fleet-device-${i % 2}`, platform: 'android' });

  /** One request after another, round-robin; the time taken bounds the refill. */
  async function roundRobin(count: number, authorization: string): Promise<{ statuses: number[]; seconds: number }> {
    const started = Date.now();
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) statuses.push((await registerPushToken(i, authorization)).status);
    return { statuses, seconds: (Date.now() - started) / 1000 };
  }

  /** Whole tokens one bucket regains in `seconds`: none in the first half second. */
  const refilled = (seconds: number) => Math.floor(seconds * REFILL_PER_SECOND);

  it(`one user's burst: ${store === 'postgres' ? 'exactly 10 pass fleet-wide' : '10 per instance, 30 in all'}, then 429`, async () => {
    const authorization = bearerFor(fleet[0], await createUser(fleet[0].dataSource));
    const buckets = store === 'postgres' ? 1 : INSTANCES;
    const sent = buckets * BURST + 5;

    const { statuses, seconds } = await roundRobin(sent, authorization);

    // The full bursts pass; of the rest, only what the buckets refilled meanwhile (none when it took under 0.5 s).
    expect(statuses.slice(0, buckets * BURST)).toEqual(Array(buckets * BURST).fill(204));
    const late = statuses.slice(buckets * BURST);
    expect(late.filter((status) => status === 204).length).toBeLessThanOrEqual(buckets * refilled(seconds));
    expect(late.filter((status) => status === 429).length).toBeGreaterThanOrEqual(5 - buckets * refilled(seconds));
    expect(statuses.filter((status) => status !== 204 && status !== 429)).toEqual([]);
  });

  it('a burst sent all at once to the three instances: the same count passes', async () => {
    const authorization = bearerFor(fleet[0], await createUser(fleet[0].dataSource));
    const buckets = store === 'postgres' ? 1 : INSTANCES;
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: INSTANCES * BURST + 15 }, (_, i) => registerPushToken(i, authorization)));
    const seconds = (Date.now() - started) / 1000;

    const passed = answers.filter((res) => res.status === 204).length;
    expect(passed).toBeGreaterThanOrEqual(buckets * BURST);
    expect(passed).toBeLessThanOrEqual(buckets * (BURST + refilled(seconds)));
    expect(answers.filter((res) => res.status !== 204 && res.status !== 429)).toEqual([]);
  });

  it('GET requests stay unlimited on every instance, for a user whose bucket is empty', async () => {
    const authorization = bearerFor(fleet[0], await createUser(fleet[0].dataSource));
    const { statuses } = await roundRobin(INSTANCES * BURST + 5, authorization);
    expect(statuses).toContain(429);

    const reads: number[] = [];
    for (let i = 0; i < 30; i++) {
      reads.push(
        (
          await request(fleet[i % INSTANCES].http)
            .get('/api/v1/auth/me')
            .set('Authorization', authorization)
        ).status,
      );
    }
    expect(reads).toEqual(Array(30).fill(200));
  });
});
