import request from 'supertest';
import type { HttpDouble } from '../support/http-double';
import { type OidcDouble, startOidcDouble, startUserInfoDouble } from '../support/identity-provider-doubles';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('sign-in, identity and withdrawal', () => {
  let userInfo: HttpDouble & { userinfoUrl: string };
  let apple: OidcDouble;
  let google: OidcDouble;
  let t: TestApp;

  beforeAll(async () => {
    userInfo = await startUserInfoDouble();
    apple = await startOidcDouble('https://appleid.example', 'com.example.briefing');
    google = await startOidcDouble('https://accounts.google.example', 'briefing-web.apps.example');
    t = await startTestApp({
      rateLimits: RELAXED_RATE_LIMITS,
      env: {
        IDP1_USERINFO_URL: userInfo.userinfoUrl,
        IDP2_JWKS_URL: apple.jwksUrl,
        IDP2_ISSUER: apple.issuer,
        IDP2_AUDIENCE: apple.audience,
        // idp3 keeps no audience: it is not configured.
        IDP3_JWKS_URL: google.jwksUrl,
        IDP3_ISSUER: google.issuer,
      },
    });
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all([userInfo?.close(), apple?.close(), google?.close()]);
  });

  const signInIdp1 = (accessToken: unknown) => request(t.http).post('/api/v1/auth/idp1/token').send({ access_token: accessToken });
  const me = (token: string) => request(t.http).get('/api/v1/auth/me').set('Authorization', `Bearer ${token}`);
  const userCount = async () => Number((await t.dataSource.query('SELECT count(*) AS n FROM users'))[0].n);

  describe('POST /api/v1/auth/idp1/token', () => {
    it('creates the account at the first sign-in and maps the same subject to the same user afterwards', async () => {
      const before = await userCount();
      const first = await signInIdp1('user-1001').expect(200);
      expect(first.body).toEqual({ token: expect.any(String) });
      expect(await userCount()).toBe(before + 1);

      const again = await signInIdp1('user-1001').expect(200);
      expect(await userCount()).toBe(before + 1);
      const firstId = (await me(first.body.token).expect(200)).body.user_id;
      const againId = (await me(again.body.token).expect(200)).body.user_id;
      expect(Number.isInteger(firstId)).toBe(true);
      expect(againId).toBe(firstId);

      const other = await signInIdp1('user-1002').expect(200);
      expect((await me(other.body.token).expect(200)).body.user_id).not.toBe(firstId);
    });

    it('sends the access token to the user-info endpoint as a bearer token', async () => {
      await signInIdp1('user-1003').expect(200);
      const call = userInfo.requests.at(-1)!;
      expect(call.method).toBe('GET');
      expect(call.headers.authorization).toBe('Bearer user-1003');
    });

    it.each([
      ['missing', {}],
      ['empty', { access_token: '' }],
      ['not a string', { access_token: 42 }],
    ])('answers 400 when access_token is %s', async (_case, body) => {
      const res = await request(t.http).post('/api/v1/auth/idp1/token').send(body).expect(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'VALIDATION_FAILED' });
      expect(res.body.message).toContain('access_token');
    });

    // Outages, throttling and unusable answers (503) are in auth-providers.e2e-spec.ts.
    it('answers 401 when the provider rejects the token, creating no user', async () => {
      const before = await userCount();
      const res = await signInIdp1('unknown-token').expect(401);
      expect(res.body).toMatchObject({ statusCode: 401, code: 'IDENTITY_REJECTED' });
      expect(await userCount()).toBe(before);
    });

    it('creates exactly one user when first sign-ins of one subject race', async () => {
      const before = await userCount();
      const results = await Promise.all(Array.from({ length: 8 }, () => signInIdp1('user-2001')));
      expect(results.map((res) => res.status)).toEqual(Array(8).fill(200));
      const ids = await Promise.all(results.map(async (res) => (await me(res.body.token).expect(200)).body.user_id));
      expect(new Set(ids).size).toBe(1);
      expect(await userCount()).toBe(before + 1);
    });
  });

  describe('POST /api/v1/auth/idp2/token (OpenID Connect)', () => {
    const signInIdp2 = (idToken: unknown) => request(t.http).post('/api/v1/auth/idp2/token').send({ id_token: idToken });

    it('signs in with a valid identity token and maps its subject to one user', async () => {
      const token = await apple.sign({ sub: 'apple-001' });
      const first = await signInIdp2(token).expect(200);
      const again = await signInIdp2(await apple.sign({ sub: 'apple-001' })).expect(200);
      const firstId = (await me(first.body.token).expect(200)).body.user_id;
      expect((await me(again.body.token).expect(200)).body.user_id).toBe(firstId);
    });

    it('keeps subjects of different providers apart', async () => {
      const viaIdp1 = await signInIdp1('user-777').expect(200);
      const viaIdp2 = await signInIdp2(await apple.sign({ sub: '777' })).expect(200);
      const idp1User = (await me(viaIdp1.body.token).expect(200)).body.user_id;
      expect((await me(viaIdp2.body.token).expect(200)).body.user_id).not.toBe(idp1User);
    });

    it.each([
      ['another audience', { aud: 'someone-else' }, 'published'],
      ['another issuer', { iss: 'https://evil.example' }, 'published'],
      ['an expired token', { issuedAt: new Date(Date.now() - 2 * 3600_000), expiresAt: new Date(Date.now() - 3600_000) }, 'published'],
      ['a key the provider never published', {}, 'foreign'],
    ] as const)('answers 401 for %s', async (_case, claims, key) => {
      const res = await signInIdp2(await apple.sign({ sub: 'apple-bad', ...claims }, key)).expect(401);
      expect(res.body.code).toBe('IDENTITY_REJECTED');
    });

    it('answers 401 for a string that is not a JWT', async () => {
      await signInIdp2('not-a-jwt').expect(401);
    });

    it('answers 400 without id_token', async () => {
      const res = await request(t.http).post('/api/v1/auth/idp2/token').send({}).expect(400);
      expect(res.body.message).toContain('id_token');
    });

    it('answers 503 for a provider without a configured audience', async () => {
      const res = await request(t.http)
        .post('/api/v1/auth/idp3/token')
        .send({ id_token: await google.sign({ sub: 'g-1' }) })
        .expect(503);
      expect(res.body).toMatchObject({ statusCode: 503, code: 'PROVIDER_NOT_CONFIGURED' });
    });
  });

  describe('the service JWT', () => {
    it('is required by GET /api/v1/auth/me', async () => {
      const res = await request(t.http).get('/api/v1/auth/me').expect(401);
      expect(res.body).toMatchObject({ statusCode: 401, error: 'Unauthorized', code: 'UNAUTHORIZED' });
    });

    it('is only read from the Authorization header', async () => {
      const { token } = (await signInIdp1('user-3001').expect(200)).body;
      await request(t.http).get(`/api/v1/auth/me?access_token=${token}`).expect(401);
      await request(t.http).get('/api/v1/auth/me').set('Cookie', `token=${token}`).expect(401);
      await request(t.http).get('/api/v1/auth/me').set('Authorization', token).expect(401);
    });

    it('is rejected when it is garbage or signed with another secret', async () => {
      await me('garbage').expect(401);
      const { token } = (await signInIdp1('user-3002').expect(200)).body;
      const [header, payload] = token.split('.');
      await me(`${header}.${payload}.${'A'.repeat(43)}`).expect(401);
    });

    it('expires after JWT_EXPIRATION_MS', async () => {
      const { token } = (await signInIdp1('user-3003').expect(200)).body;
      t.clock.advance(7 * DAY_MS - 60_000);
      await me(token).expect(200);
      t.clock.advance(61_000);
      const res = await me(token).expect(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
      t.clock.set(new Date());
    });

    it('stops working when its user is deleted', async () => {
      const { token } = (await signInIdp1('user-3004').expect(200)).body;
      const userId = (await me(token).expect(200)).body.user_id;
      await t.dataSource.query('DELETE FROM users WHERE id = $1', [userId]);
      await me(token).expect(401);
    });
  });

  describe('DELETE /api/v1/auth/withdraw', () => {
    it('answers 401 without a valid JWT', async () => {
      await request(t.http).delete('/api/v1/auth/withdraw').set('X-Confirm-Withdraw', 'yes').expect(401);
    });

    it('answers 400 without X-Confirm-Withdraw: yes and deletes nothing', async () => {
      const { token } = (await signInIdp1('user-4001').expect(200)).body;
      const res = await request(t.http).delete('/api/v1/auth/withdraw').set('Authorization', `Bearer ${token}`).expect(400);
      expect(res.body.code).toBe('WITHDRAW_NOT_CONFIRMED');
      await request(t.http)
        .delete('/api/v1/auth/withdraw')
        .set('Authorization', `Bearer ${token}`)
        .set('X-Confirm-Withdraw', 'no')
        .expect(400);
      await me(token).expect(200);
    });

    it('deletes the user and every row that belongs to the user, then a new sign-in is a new account', async () => {
      const { token } = (await signInIdp1('user-4002').expect(200)).body;
      const userId = (await me(token).expect(200)).body.user_id;
      const other = (await signInIdp1('user-4003').expect(200)).body.token;
      const otherId = (await me(other).expect(200)).body.user_id;

      await request(t.http)
        .delete('/api/v1/auth/withdraw')
        .set('Authorization', `Bearer ${token}`)
        .set('X-Confirm-Withdraw', 'yes')
        .expect(204, '');

      for (const table of await tablesWithUserId()) {
        const column = table === 'users' ? 'id' : 'user_id';
        const [mine] = await t.dataSource.query(`SELECT count(*) AS n FROM ${table} WHERE ${column} = $1`, [userId]);
        expect({ table, rows: Number(mine.n) }).toEqual({ table, rows: 0 });
      }
      const [kept] = await t.dataSource.query('SELECT count(*) AS n FROM user_identities WHERE user_id = $1', [otherId]);
      expect(Number(kept.n)).toBe(1);
      await me(token).expect(401);
      await me(other).expect(200);

      const fresh = (await signInIdp1('user-4002').expect(200)).body.token;
      expect((await me(fresh).expect(200)).body.user_id).not.toBe(userId);
    });

    it('relies on ON DELETE CASCADE from every table that references users', async () => {
      const references = await t.dataSource.query(`
        SELECT tc.table_name, rc.delete_rule
        FROM information_schema.referential_constraints rc
        JOIN information_schema.table_constraints tc ON tc.constraint_name = rc.constraint_name
        JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = rc.unique_constraint_name
        WHERE ccu.table_name = 'users'`);
      expect(references.length).toBeGreaterThan(0);
      for (const reference of references) {
        expect(reference).toEqual({ table_name: reference.table_name, delete_rule: 'CASCADE' });
      }
    });
  });

  async function tablesWithUserId(): Promise<string[]> {
    const rows: { table_name: string }[] = await t.dataSource.query(`
      SELECT DISTINCT table_name FROM information_schema.columns
      WHERE table_schema = 'public' AND column_name = 'user_id'`);
    return ['users', ...rows.map((row) => row.table_name)];
  }
});
