import request from 'supertest';
import { RATE_LIMIT_TIME } from '../../src/rate-limit/bucket-store';
import { RATE_LIMIT_STORES } from '../../src/rate-limit/rate-limit.config';
import { FakeClock } from '../support/fake-clock';
import { bearerFor, createUser } from '../support/fixtures';
import { startTestApp, TEST_CLIENT_IP_HEADER, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const INSTANCES = 3;
/** The specification's general limit: bursts of 10 (refilled at 2 a second, while the buckets' time moves). */
const BURST = 10;

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

  // The buckets' time stands still, the same for every instance: a slow machine refills nothing
  // between requests, so each count is exact.
  const time = new FakeClock();

  beforeAll(async () => {
    database = await createTestDatabase();
    fleet = [];
    for (let i = 0; i < INSTANCES; i++) {
      fleet.push(
        await startTestApp({ database, env: { RATE_LIMIT_STORE: store }, overrides: [{ provide: RATE_LIMIT_TIME, useValue: time }] }),
      );
    }
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

  /** One request after another, round-robin. */
  async function roundRobin(count: number, authorization: string): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) statuses.push((await registerPushToken(i, authorization)).status);
    return statuses;
  }

  it(`one user's burst: ${store === 'postgres' ? 'exactly 10 pass fleet-wide' : '10 per instance, 30 in all'}, then 429`, async () => {
    const authorization = bearerFor(fleet[0], await createUser(fleet[0].dataSource));
    const buckets = store === 'postgres' ? 1 : INSTANCES;
    const sent = buckets * BURST + 5;

    const statuses = await roundRobin(sent, authorization);

    // The full bursts pass; nothing is refilled while the buckets' time stands still, so the rest are refused.
    expect(statuses).toEqual([...Array(buckets * BURST).fill(204), ...Array(5).fill(429)]);
  });

  it('a burst sent all at once to the three instances: the same count passes', async () => {
    const authorization = bearerFor(fleet[0], await createUser(fleet[0].dataSource));
    const buckets = store === 'postgres' ? 1 : INSTANCES;
    const answers = await Promise.all(Array.from({ length: INSTANCES * BURST + 15 }, (_, i) => registerPushToken(i, authorization)));

    expect(answers.filter((res) => res.status === 204)).toHaveLength(buckets * BURST);
    expect(answers.filter((res) => res.status !== 204 && res.status !== 429)).toEqual([]);
  });

  it('GET requests stay unlimited on every instance, for a user whose bucket is empty', async () => {
    const authorization = bearerFor(fleet[0], await createUser(fleet[0].dataSource));
    expect(await roundRobin(INSTANCES * BURST + 5, authorization)).toContain(429);

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
