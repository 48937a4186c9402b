import pino from 'pino';
import request from 'supertest';
import { HttpCacheService } from '../../src/http-cache/http-cache.service';
import { startUserInfoDouble } from '../support/identity-provider-doubles';
import type { HttpDouble } from '../support/http-double';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

const ADMIN_KEY = 'operator-key-for-tests';

describe('request pipeline and operator surface', () => {
  let userInfo: HttpDouble & { userinfoUrl: string };
  let t: TestApp;

  beforeAll(async () => {
    userInfo = await startUserInfoDouble();
    t = await startTestApp({
      rateLimits: RELAXED_RATE_LIMITS,
      env: { ADMIN_KEY, IDP1_USERINFO_URL: userInfo.userinfoUrl },
    });
  });

  afterAll(async () => {
    await t?.close();
    await userInfo?.close();
  });

  describe('errors and input', () => {
    it('answers an unknown route with the standard error body', async () => {
      const res = await request(t.http).get('/api/v1/nothing-here').expect(404);
      expect(res.body).toEqual({ statusCode: 404, error: 'Not Found', message: expect.any(String), code: 'NOT_FOUND' });
    });

    it('answers malformed JSON with 400 MALFORMED_JSON', async () => {
      const res = await request(t.http)
        .post('/api/v1/auth/idp1/token')
        .set('Content-Type', 'application/json')
        .send('{"access_token": ')
        .expect(400);
      expect(res.body).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        message: 'The request body is not valid JSON',
        code: 'MALFORMED_JSON',
      });
    });

    it('answers a body over 256 kB with 413 and accepts one just under it', async () => {
      const big = await request(t.http)
        .post('/api/v1/auth/idp1/token')
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ access_token: 'x', padding: 'y'.repeat(256 * 1024) }))
        .expect(413);
      expect(big.body).toMatchObject({ statusCode: 413, code: 'PAYLOAD_TOO_LARGE' });

      await request(t.http)
        .post('/api/v1/auth/idp1/token')
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ access_token: 'user-1', padding: 'y'.repeat(200 * 1024) }))
        .expect(200);
    });

    it('answers a JSON array or scalar body with 400, never 500', async () => {
      for (const body of ['[1,2]', '"text"', 'null']) {
        const res = await request(t.http).post('/api/v1/auth/idp1/token').set('Content-Type', 'application/json').send(body);
        expect(res.status).toBe(400);
        expect(res.body.statusCode).toBe(400);
      }
    });

    it('lists every field problem in the message', async () => {
      const res = await request(t.http).post('/api/v1/auth/idp1/token').send({ access_token: 7 }).expect(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.message).toMatch(/access_token must be a string/);
    });

    it('tags every answer with a request id, keeping a well-formed incoming one', async () => {
      const generated = await request(t.http).get('/health').expect(200);
      expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      const kept = await request(t.http).get('/health').set('X-Request-Id', 'trace-abc.123').expect(200);
      expect(kept.headers['x-request-id']).toBe('trace-abc.123');
      const replaced = await request(t.http).get('/health').set('X-Request-Id', 'bad id with spaces').expect(200);
      expect(replaced.headers['x-request-id']).not.toBe('bad id with spaces');
    });
  });

  describe('logs', () => {
    it('carry the request id on every line written while serving a request', async () => {
      const lines: Record<string, unknown>[] = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
      const logged = await startTestApp({ database: t.database, logger, env: { IDP1_USERINFO_URL: userInfo.userinfoUrl } });
      try {
        // A provider failure makes the service log a warning in the middle of the request.
        const res = await request(logged.http).post('/api/v1/auth/idp1/token').send({ access_token: 'server-error' }).expect(503);
        const requestId = res.headers['x-request-id'];
        const ofRequest = lines.filter((line) => line.reqId === requestId);
        expect(ofRequest.map((line) => line.msg)).toEqual(
          expect.arrayContaining([
            `${new URL(userInfo.userinfoUrl).host} user-info answered 500: sign-in refused with IDENTITY_UNAVAILABLE`,
            'request errored',
          ]),
        );
        expect(JSON.stringify(lines)).not.toContain('server-error');
      } finally {
        await logged.close();
      }
    });
  });

  describe('a cache hit', () => {
    it('passes the same pipeline as the miss: request id, security headers, CORS, Cache-Control, ETag; and is measured under its route', async () => {
      const varying = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);
      const stable = (headers: Record<string, string>) => Object.entries(headers).filter(([name]) => !varying.has(name));
      const answer = jest.spyOn(t.app.get(HttpCacheService), 'answer');
      const url = '/api/v1/disclosures/recent?limit=3';
      const miss = await request(t.http).get(url).set('Origin', 'https://app.example').expect(200);
      const firstHit = await request(t.http).get(url).set('Origin', 'https://app.example').expect(200);
      const hit = await request(t.http).get(url).set('Origin', 'https://app.example').expect(200);
      // The first hit went through Nest and prepared the answer; the next was answered before routing.
      expect(answer).toHaveBeenCalledTimes(2);
      answer.mockRestore();
      expect(stable(firstHit.headers)).toEqual(stable(miss.headers));

      expect(stable(hit.headers)).toEqual(stable(miss.headers));
      expect(hit.text).toBe(miss.text);
      expect(hit.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(hit.headers['x-request-id']).not.toBe(miss.headers['x-request-id']);
      expect(hit.headers).toMatchObject({
        'access-control-allow-origin': '*',
        'cache-control': 'public, max-age=30',
        'x-content-type-options': 'nosniff',
        etag: expect.stringMatching(/^W\/"/),
      });

      const metrics = (await request(t.http).get('/metrics').expect(200)).text;
      expect(metrics).toMatch(/http_cache_requests_total\{route="\/api\/v1\/disclosures\/recent",result="hit"\} [1-9]/);
      expect(metrics).toMatch(
        /http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/disclosures\/recent",status_code="200"\} [3-9]/,
      );
    });
  });

  describe('CORS', () => {
    it('answers a preflight from any origin by default', async () => {
      const res = await request(t.http)
        .options('/api/v1/auth/withdraw')
        .set('Origin', 'https://web.example')
        .set('Access-Control-Request-Method', 'DELETE')
        .set('Access-Control-Request-Headers', 'authorization,x-confirm-withdraw');
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-methods']).toContain('DELETE');
      expect(res.headers['access-control-allow-headers']?.toLowerCase()).toContain('x-confirm-withdraw');
      expect(res.headers['access-control-allow-headers']?.toLowerCase()).toContain('authorization');
    });

    it('exposes Retry-After and X-Request-Id to browsers', async () => {
      const res = await request(t.http).get('/health').set('Origin', 'https://web.example').expect(200);
      expect(res.headers['access-control-expose-headers']).toMatch(/Retry-After/);
      expect(res.headers['access-control-expose-headers']).toMatch(/X-Request-Id/);
    });

    describe('with CORS_ORIGINS set', () => {
      let restricted: TestApp;
      beforeAll(async () => {
        restricted = await startTestApp({ database: t.database, env: { CORS_ORIGINS: 'https://app.example,https://www.example/' } });
      });
      afterAll(() => restricted?.close());

      it('allows the listed origins only', async () => {
        const allowed = await request(restricted.http)
          .options('/api/v1/auth/me')
          .set('Origin', 'https://www.example')
          .set('Access-Control-Request-Method', 'GET');
        expect(allowed.status).toBe(204);
        expect(allowed.headers['access-control-allow-origin']).toBe('https://www.example');

        const refused = await request(restricted.http)
          .options('/api/v1/auth/me')
          .set('Origin', 'https://evil.example')
          .set('Access-Control-Request-Method', 'GET');
        expect(refused.headers['access-control-allow-origin']).toBeUndefined();
      });
    });
  });

  describe('admin guard', () => {
    const status = () => request(t.http).get('/api/v1/admin/status');

    it('refuses a missing or wrong X-Admin-Key', async () => {
      const missing = await status().expect(401);
      expect(missing.body).toMatchObject({ statusCode: 401, code: 'UNAUTHORIZED' });
      await status().set('X-Admin-Key', 'wrong').expect(401);
      await status().set('X-Admin-Key', `${ADMIN_KEY}x`).expect(401);
      await status().set('X-Admin-Key', ADMIN_KEY.slice(0, -1)).expect(401);
    });

    it('accepts the right key', async () => {
      const res = await status().set('X-Admin-Key', ADMIN_KEY).expect(200);
      expect(res.body).toMatchObject({ status: 'ok', app_env: 'local', version: expect.any(String) });
    });

    it('ignores JWTs: a signed-in user without the key is refused', async () => {
      const { token } = (await request(t.http).post('/api/v1/auth/idp1/token').send({ access_token: 'user-9' }).expect(200)).body;
      await status().set('Authorization', `Bearer ${token}`).expect(401);
    });

    it('guards every /api/v1/admin route in the API description', async () => {
      const document = (await request(t.http).get('/docs-json').expect(200)).body;
      const adminOperations = Object.entries(document.paths as Record<string, Record<string, unknown>>)
        .filter(([path]) => path.startsWith('/api/v1/admin'))
        .flatMap(([path, operations]) => Object.keys(operations).map((method) => ({ path, method })));
      expect(adminOperations.length).toBeGreaterThan(0);
      for (const { path, method } of adminOperations) {
        const res = await (request(t.http) as unknown as Record<string, (url: string) => request.Test>)[method](
          path.replace(/\{[^}]+\}/g, '00000000'),
        );
        expect({ path, method, status: res.status }).toEqual({ path, method, status: 401 });
      }
    });

    describe('while ADMIN_KEY is unset', () => {
      let noKey: TestApp;
      beforeAll(async () => {
        noKey = await startTestApp({ database: t.database, env: { ADMIN_KEY: undefined } });
      });
      afterAll(() => noKey?.close());

      it('refuses every call, whatever key is sent', async () => {
        await request(noKey.http).get('/api/v1/admin/status').expect(401);
        await request(noKey.http).get('/api/v1/admin/status').set('X-Admin-Key', '').expect(401);
        await request(noKey.http).get('/api/v1/admin/status').set('X-Admin-Key', ADMIN_KEY).expect(401);
      });
    });
  });

  describe('operator surface', () => {
    it('reports liveness and database readiness', async () => {
      await request(t.http).get('/health').expect(200, { status: 'ok', info: {}, error: {}, details: {} });
      const ready = await request(t.http).get('/health/ready').expect(200);
      expect(ready.body.info.database.status).toBe('up');
    });

    it('serves Swagger UI at /docs', async () => {
      const res = await request(t.http).get('/docs').expect(200);
      expect(res.text).toContain('swagger-ui');
    });

    it("sends an API's security headers on every JSON answer: success, error, unknown route and the OpenAPI document", async () => {
      for (const res of [
        await request(t.http).get('/health').expect(200),
        await request(t.http).get('/api/v1/nothing-here').expect(404),
        await request(t.http).get('/api/v1/auth/me').expect(401),
        await request(t.http).get('/docs-json').expect(200),
      ]) {
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.headers['x-frame-options']).toBe('DENY');
        expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
        expect(res.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
        expect(res.headers['x-powered-by']).toBeUndefined();
        // Those only a rendered page acts on.
        expect(res.headers['x-dns-prefetch-control']).toBeUndefined();
        expect(res.headers['referrer-policy']).toBeUndefined();
      }
    });

    it("sends a page's security headers on Swagger UI and its assets", async () => {
      const page = await request(t.http).get('/docs').expect(200);
      const stylesheet = /<link rel="stylesheet"[^>]*href="([^"]+)"/.exec(page.text)![1];
      const asset = await request(t.http).get(new URL(stylesheet, 'http://service/docs').pathname).expect(200);
      for (const res of [page, asset]) {
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
        expect(res.headers['content-security-policy']).toContain("default-src 'self'");
        expect(res.headers['referrer-policy']).toBe('no-referrer');
        expect(res.headers['x-powered-by']).toBeUndefined();
      }
    });

    it('serves Swagger UI under a CSP that lets it load: same-origin scripts of a script type, allowed inline styles', async () => {
      const page = await request(t.http).get('/docs').expect(200);
      const csp = Object.fromEntries(
        String(page.headers['content-security-policy'])
          .split(';')
          .map((directive) => directive.trim().split(/\s+/))
          .map(([name, ...sources]) => [name, sources]),
      );
      const allows = (directive: string, source: string) => (csp[directive] ?? csp['default-src']).includes(source);
      // Served over plain http (local, behind a TLS proxy): an upgrade would break every asset.
      expect(csp['upgrade-insecure-requests']).toBeUndefined();

      const scripts = [...page.text.matchAll(/<script([^>]*)>/g)].map((match) => /src="([^"]+)"/.exec(match[1])?.[1]);
      expect(scripts.length).toBeGreaterThan(0);
      expect(scripts).not.toContain(undefined); // no inline script, which script-src 'self' would block
      expect(allows('script-src', "'self'")).toBe(true);
      if (/<style>/.test(page.text)) expect(allows('style-src', "'unsafe-inline'")).toBe(true);
      expect(allows('img-src', 'data:')).toBe(true);

      const stylesheets = [...page.text.matchAll(/<link rel="stylesheet"[^>]*href="([^"]+)"/g)].map((match) => match[1]);
      expect(allows('style-src', "'self'")).toBe(true);
      const assets = [
        ...scripts.map((url) => ({ url: url!, type: /javascript/ })),
        ...stylesheets.map((url) => ({ url, type: /text\/css/ })),
      ];
      for (const { url, type } of assets) {
        const { pathname } = new URL(url, 'http://service/docs');
        const asset = await request(t.http).get(pathname);
        // nosniff makes browsers drop a script or stylesheet served with another type.
        expect({ pathname, status: asset.status, type: type.test(asset.headers['content-type']) }).toEqual({
          pathname,
          status: 200,
          type: true,
        });
      }
    });

    it('describes the bearer and admin-key schemes and every route with its responses', async () => {
      const document = (await request(t.http).get('/docs-json').expect(200)).body;
      expect(document.components.securitySchemes).toEqual({
        jwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        'admin-key': { type: 'apiKey', in: 'header', name: 'X-Admin-Key' },
        // Google Pub/Sub's push to the Play notifications receiver.
        'pubsub-oidc': { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: expect.any(String) },
        'pubsub-token': { type: 'apiKey', in: 'query', name: 'token', description: expect.any(String) },
      });
      expect(document.paths['/api/v1/auth/me'].get.security).toEqual([{ jwt: [] }]);
      expect(document.paths['/api/v1/admin/status'].get.security).toEqual([{ 'admin-key': [] }]);
      for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, { responses: object }>>)) {
        for (const [method, operation] of Object.entries(operations)) {
          expect({ path, method, documented: Object.keys(operation.responses).length > 0 }).toEqual({
            path,
            method,
            documented: true,
          });
        }
      }
    });
  });
});
