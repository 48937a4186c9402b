import request from 'supertest';
import { QUIET_JOBS, startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

describe('readiness and required settings', () => {
  let database: TestDatabase;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await database?.drop();
  });

  const start = async (env: Record<string, string | undefined>) => {
    const app = await startTestApp({ database, env: { ...QUIET_JOBS, ...env } });
    apps.push(app);
    return app;
  };

  it('keeps a production instance without DART_API_KEY alive but never ready', async () => {
    const t = await start({ APP_ENV: 'production', DART_API_KEY: undefined });
    await request(t.http).get('/health').expect(200);
    const ready = await request(t.http).get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      code: 'SERVICE_UNAVAILABLE',
      message: 'Not ready: required in production but not set: DART_API_KEY',
    });
  });

  it('is ready in production with DART_API_KEY, and in local and dev without it', async () => {
    const production = await start({ APP_ENV: 'production', DART_API_KEY: 'k'.repeat(40) });
    await request(production.http).get('/health/ready').expect(200);
    for (const appEnv of ['local', 'dev']) {
      const t = await start({ APP_ENV: appEnv, DART_API_KEY: undefined });
      await request(t.http).get('/health/ready').expect(200);
    }
  });
});
