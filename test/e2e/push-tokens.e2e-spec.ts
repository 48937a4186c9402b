import request from 'supertest';
import { bearerFor, createUser } from '../support/fixtures';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

const PATH = '/api/v1/push/fcm-token';

describe('push tokens: /api/v1/push/fcm-token', () => {
  let t: TestApp;
  let serial = 0;

  beforeAll(async () => {
    t = await startTestApp({ rateLimits: RELAXED_RATE_LIMITS });
  });

  afterAll(async () => {
    await t?.close();
  });

  /** A token shaped like FCM's: an instance id, a colon and a long URL-safe part; unique per call. */
  const newFcmToken = () => `dev${++serial}Xq3kZQ0e0b8sX:APA91bH${'a1_B-'.repeat(28)}${serial}`;
  const bearer = (userId: number) => bearerFor(t, userId);
  const register = (userId: number, body: unknown) =>
    request(t.http)
      .post(PATH)
      .set('Authorization', bearer(userId))
      .send(body as object);
  const unregister = (userId: number, body: unknown) =>
    request(t.http)
      .delete(PATH)
      .set('Authorization', bearer(userId))
      .send(body as object);

  interface StoredToken {
    user_id: number;
    platform: string;
    created_at: Date;
    updated_at: Date;
  }
  const rowsOf = (fcmToken: string) =>
    t.dataSource.query<StoredToken[]>('SELECT user_id, platform, created_at, updated_at FROM push_tokens WHERE fcm_token = $1', [fcmToken]);
  const tokensOfUser = async (userId: number) =>
    (await t.dataSource.query<{ fcm_token: string }[]>('SELECT fcm_token FROM push_tokens WHERE user_id = $1 ORDER BY id', [userId])).map(
      (row) => row.fcm_token,
    );

  describe('authentication', () => {
    it.each(['post', 'delete'] as const)('answers 401 to %s without a valid JWT and stores nothing', async (method) => {
      const fcmToken = newFcmToken();
      const anonymous = await request(t.http)[method](PATH).send({ fcm_token: fcmToken, platform: 'ios' }).expect(401);
      expect(anonymous.body).toMatchObject({ statusCode: 401, error: 'Unauthorized', code: 'UNAUTHORIZED' });
      await request(t.http)[method](PATH).set('Authorization', 'Bearer not-a-jwt').send({ fcm_token: fcmToken }).expect(401);
      expect(await rowsOf(fcmToken)).toEqual([]);
    });

    it('answers 401 for a user deleted after the token was issued', async () => {
      const userId = await createUser(t.dataSource);
      const token = bearer(userId);
      await t.dataSource.query('DELETE FROM users WHERE id = $1', [userId]);
      const fcmToken = newFcmToken();
      await request(t.http).post(PATH).set('Authorization', token).send({ fcm_token: fcmToken, platform: 'ios' }).expect(401);
      expect(await rowsOf(fcmToken)).toEqual([]);
    });
  });

  describe('POST: register', () => {
    it('answers 204 with no body and stores the token for the caller', async () => {
      const userId = await createUser(t.dataSource);
      const fcmToken = newFcmToken();
      const res = await register(userId, { fcm_token: fcmToken, platform: 'android' }).expect(204);
      expect(res.text).toBe('');
      expect(await rowsOf(fcmToken)).toEqual([
        { user_id: userId, platform: 'android', created_at: expect.any(Date), updated_at: expect.any(Date) },
      ]);
    });

    it('updates the platform and updated_at when the same user registers the token again, keeping one row', async () => {
      const userId = await createUser(t.dataSource);
      const fcmToken = newFcmToken();
      await register(userId, { fcm_token: fcmToken, platform: 'ios' }).expect(204);
      // Back-dated, so the change is visible whatever the timestamps' resolution.
      const backDated = new Date('2026-01-01T00:00:00.000Z');
      await t.dataSource.query('UPDATE push_tokens SET updated_at = $2 WHERE fcm_token = $1', [fcmToken, backDated]);
      const [before] = await rowsOf(fcmToken);
      await register(userId, { fcm_token: fcmToken, platform: 'android' }).expect(204);
      const after = await rowsOf(fcmToken);
      expect(after).toHaveLength(1);
      expect(after[0]).toMatchObject({ user_id: userId, platform: 'android', created_at: before.created_at });
      expect(after[0].updated_at.getTime()).toBeGreaterThan(backDated.getTime());
    });

    it('keeps several tokens (devices) per user', async () => {
      const userId = await createUser(t.dataSource);
      const phone = newFcmToken();
      const tablet = newFcmToken();
      await register(userId, { fcm_token: phone, platform: 'ios' }).expect(204);
      await register(userId, { fcm_token: tablet, platform: 'android' }).expect(204);
      expect(await tokensOfUser(userId)).toEqual([phone, tablet]);
    });

    it('moves a token registered by user A to user B, who then holds it alone', async () => {
      const userA = await createUser(t.dataSource);
      const userB = await createUser(t.dataSource);
      const shared = newFcmToken();
      const keptByA = newFcmToken();
      await register(userA, { fcm_token: shared, platform: 'ios' }).expect(204);
      await register(userA, { fcm_token: keptByA, platform: 'ios' }).expect(204);

      await register(userB, { fcm_token: shared, platform: 'android' }).expect(204);

      expect(await rowsOf(shared)).toEqual([expect.objectContaining({ user_id: userB, platform: 'android' })]);
      expect(await tokensOfUser(userA)).toEqual([keptByA]);
      expect(await tokensOfUser(userB)).toEqual([shared]);
    });

    it('ends 10 parallel registrations of one token by different users with one row owned by one of them', async () => {
      const users = await Promise.all(Array.from({ length: 10 }, () => createUser(t.dataSource)));
      const fcmToken = newFcmToken();
      const results = await Promise.all(users.map((userId) => register(userId, { fcm_token: fcmToken, platform: 'ios' })));
      expect(results.map((res) => res.status)).toEqual(Array(10).fill(204));
      const rows = await rowsOf(fcmToken);
      expect(rows).toHaveLength(1);
      expect(users).toContain(rows[0].user_id);
      const owners = await Promise.all(users.map(tokensOfUser));
      expect(owners.filter((tokens) => tokens.includes(fcmToken))).toHaveLength(1);
    });

    it('accepts a token of exactly 1024 characters (the bound that keeps it inside a btree entry)', async () => {
      const userId = await createUser(t.dataSource);
      const longest = `long${++serial}:`.padEnd(1024, 'x');
      await register(userId, { fcm_token: longest, platform: 'ios' }).expect(204);
      expect(await tokensOfUser(userId)).toEqual([longest]);
    });

    it.each([
      ['fcm_token is missing', { platform: 'ios' }, 'fcm_token'],
      ['fcm_token is empty', { fcm_token: '', platform: 'ios' }, 'fcm_token'],
      ['fcm_token is null', { fcm_token: null, platform: 'ios' }, 'fcm_token'],
      ['fcm_token is a number', { fcm_token: 12345, platform: 'ios' }, 'fcm_token'],
      ['fcm_token is an array', { fcm_token: ['abc'], platform: 'ios' }, 'fcm_token'],
      ['fcm_token is 1025 characters long', { fcm_token: 'x'.repeat(1025), platform: 'ios' }, 'fcm_token'],
      ['fcm_token holds a space', { fcm_token: 'abc def', platform: 'ios' }, 'fcm_token'],
      ['fcm_token is blank', { fcm_token: '   ', platform: 'ios' }, 'fcm_token'],
      ['platform is missing', { fcm_token: 'valid-token' }, 'platform'],
      ['platform is web', { fcm_token: 'valid-token', platform: 'web' }, 'platform'],
      ['platform is in capitals', { fcm_token: 'valid-token', platform: 'IOS' }, 'platform'],
      ['platform is not a string', { fcm_token: 'valid-token', platform: 1 }, 'platform'],
    ])('answers 400 when %s, storing nothing', async (_case, body, field) => {
      const userId = await createUser(t.dataSource);
      const res = await register(userId, body).expect(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'VALIDATION_FAILED' });
      expect(res.body.message).toContain(field);
      expect(await tokensOfUser(userId)).toEqual([]);
    });

    it('answers 400 without a body', async () => {
      const userId = await createUser(t.dataSource);
      await request(t.http).post(PATH).set('Authorization', bearer(userId)).expect(400);
    });
  });

  describe('DELETE: unregister', () => {
    it('deletes the caller’s own token with 204 and no body', async () => {
      const userId = await createUser(t.dataSource);
      const fcmToken = newFcmToken();
      const other = newFcmToken();
      await register(userId, { fcm_token: fcmToken, platform: 'ios' }).expect(204);
      await register(userId, { fcm_token: other, platform: 'ios' }).expect(204);
      const res = await unregister(userId, { fcm_token: fcmToken }).expect(204);
      expect(res.text).toBe('');
      expect(await rowsOf(fcmToken)).toEqual([]);
      expect(await tokensOfUser(userId)).toEqual([other]);
    });

    it('answers 204 for a token of another user and leaves it with its owner', async () => {
      const owner = await createUser(t.dataSource);
      const caller = await createUser(t.dataSource);
      const fcmToken = newFcmToken();
      await register(owner, { fcm_token: fcmToken, platform: 'android' }).expect(204);
      await unregister(caller, { fcm_token: fcmToken }).expect(204);
      expect(await rowsOf(fcmToken)).toEqual([expect.objectContaining({ user_id: owner, platform: 'android' })]);
    });

    it('answers 204 for a token that does not exist', async () => {
      const userId = await createUser(t.dataSource);
      await unregister(userId, { fcm_token: newFcmToken() }).expect(204);
    });

    it('lets the previous owner’s delete leave a token that moved to another user alone', async () => {
      const previous = await createUser(t.dataSource);
      const current = await createUser(t.dataSource);
      const fcmToken = newFcmToken();
      await register(previous, { fcm_token: fcmToken, platform: 'ios' }).expect(204);
      await register(current, { fcm_token: fcmToken, platform: 'ios' }).expect(204);
      await unregister(previous, { fcm_token: fcmToken }).expect(204);
      expect(await rowsOf(fcmToken)).toEqual([expect.objectContaining({ user_id: current })]);
    });

    it.each([
      ['missing', {}],
      ['empty', { fcm_token: '' }],
      ['not a string', { fcm_token: 42 }],
      ['too long', { fcm_token: 'x'.repeat(1025) }],
    ])('answers 400 when fcm_token is %s', async (_case, body) => {
      const userId = await createUser(t.dataSource);
      const res = await unregister(userId, body).expect(400);
      expect(res.body).toMatchObject({ statusCode: 400, code: 'VALIDATION_FAILED' });
      expect(res.body.message).toContain('fcm_token');
    });

    it('answers 400 without a body', async () => {
      const userId = await createUser(t.dataSource);
      await request(t.http).delete(PATH).set('Authorization', bearer(userId)).expect(400);
    });
  });

  describe('withdrawal', () => {
    it('deletes the user’s tokens and keeps everyone else’s', async () => {
      const userId = await createUser(t.dataSource);
      const other = await createUser(t.dataSource);
      const otherToken = newFcmToken();
      await register(userId, { fcm_token: newFcmToken(), platform: 'ios' }).expect(204);
      await register(userId, { fcm_token: newFcmToken(), platform: 'android' }).expect(204);
      await register(other, { fcm_token: otherToken, platform: 'ios' }).expect(204);

      await request(t.http)
        .delete('/api/v1/auth/withdraw')
        .set('Authorization', bearer(userId))
        .set('X-Confirm-Withdraw', 'yes')
        .expect(204);

      expect(await tokensOfUser(userId)).toEqual([]);
      expect(await tokensOfUser(other)).toEqual([otherToken]);
    });
  });

  describe('OpenAPI', () => {
    it('documents both routes with their bodies and error responses', async () => {
      const doc = (await request(t.http).get('/docs-json').expect(200)).body;
      const route = doc.paths[PATH];
      expect(route.post.requestBody.content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/RegisterPushTokenRequest',
      });
      expect(route.delete.requestBody.content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/UnregisterPushTokenRequest',
      });
      expect(Object.keys(route.post.responses).sort()).toEqual(['204', '400', '401', '413', '414', '415', '429', '500', '503']);
      expect(Object.keys(route.delete.responses).sort()).toEqual(['204', '400', '401', '413', '414', '415', '429', '500', '503']);
      const register = doc.components.schemas.RegisterPushTokenRequest;
      expect(register.required.sort()).toEqual(['fcm_token', 'platform']);
      expect(register.properties.platform.enum).toEqual(['ios', 'android']);
      expect(register.properties.fcm_token.maxLength).toBe(1024);
    });
  });
});
