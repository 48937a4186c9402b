import express from 'express';
import { PinoLogger } from 'nestjs-pino';
import pino from 'pino';
import request from 'supertest';
import { Writable } from 'node:stream';
import { FakeClock } from '../../test/support/fake-clock';
import { createRequestLogger, LOGGED_URL_MAX_CHARS } from './request-logger';
import { sendError } from '../common/errors/error-body';
import { createRootLogger } from './root-logger';

/**
 * An Express app behind the request logger, and the lines its logger wrote (a plain pino
 * logger, or the root logger with its redaction); `/ok` takes 120.4 ms of the clock.
 */
function appWithLog(options: { adminKey?: string } = {}) {
  const lines: Record<string, unknown>[] = [];
  const write = (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>);
  const logger =
    options.adminKey === undefined
      ? pino({ level: 'info' }, { write })
      : createRootLogger(
          { appEnv: 'dev', logLevel: 'info', adminKey: options.adminKey },
          new Writable({
            write(chunk: Buffer, _encoding, done) {
              for (const line of chunk.toString().split('\n').filter(Boolean)) write(line);
              done();
            },
          }),
        );
  const clock = new FakeClock();
  const app = express();
  app.use(createRequestLogger(logger, clock));
  app.get('/ok', (_req, res) => {
    // A service's line, through nestjs-pino's request context.
    new PinoLogger({}).info('inside the request');
    clock.advance(120.4);
    res.json({ ok: true });
  });
  app.get('/quiet', (_req, res) => res.json({}));
  app.get('/missing', (_req, res) => res.status(404).json({}));
  app.get('/invalid', (_req, res) => res.status(400).json({}));
  app.get('/gone', (_req, res) => res.status(410).json({}));
  app.get('/long', (_req, res) => res.json({}));
  app.get('/broken', (_req, res) => res.status(500).json({}));
  app.get('/refused/:id', (_req, res) => sendError(res, 409, 'NOT_READY', 'not yet'));
  app.get('/health', (_req, res) => res.json({}));
  app.get('/hang', (req) => req.socket.destroy());
  return { app, lines };
}

describe('createRequestLogger', () => {
  it('writes one access line per request, with the request id that every line of the request carries', async () => {
    const { app, lines } = appWithLog();
    const res = await request(app).get('/ok?a=1').expect(200);
    const id = res.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines).toEqual([
      expect.objectContaining({ level: 30, reqId: id, msg: 'inside the request' }),
      expect.objectContaining({
        level: 30,
        reqId: id,
        req: { method: 'GET', url: '/ok?a=1', route: '/ok' },
        res: { statusCode: 200 },
        msg: 'request completed',
      }),
    ]);
    expect(lines[1].responseTime).toBe(120);
  });

  it('keeps a well-formed incoming X-Request-Id and replaces another', async () => {
    const { app, lines } = appWithLog();
    await request(app).get('/quiet').set('X-Request-Id', 'trace-1').expect('X-Request-Id', 'trace-1');
    const replaced = await request(app).get('/quiet').set('X-Request-Id', 'no spaces please');
    expect(replaced.headers['x-request-id']).not.toBe('no spaces please');
    expect(lines.map((line) => line.reqId)).toEqual(['trace-1', replaced.headers['x-request-id']]);
  });

  it('logs 4xx at warn but 404 at info, 5xx at error, and a request the client dropped as aborted; never the health probes', async () => {
    const { app, lines } = appWithLog();
    await request(app).get('/missing').expect(404);
    await request(app).get('/no-such-route').expect(404);
    await request(app).get('/invalid').expect(400);
    await request(app).get('/gone').expect(410);
    await request(app).get('/broken').expect(500);
    await request(app).get('/health').expect(200);
    await expect(request(app).get('/hang')).rejects.toThrow();
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((line) => [line.level, line.msg, (line.req as { url: string }).url])).toEqual([
      [30, 'request completed', '/missing'],
      [30, 'request completed', '/no-such-route'],
      [40, 'request completed', '/invalid'],
      [40, 'request completed', '/gone'],
      [50, 'request errored', '/broken'],
      [40, 'request aborted', '/hang'],
    ]);
  });

  it('names the route template (never the raw path) and the code of an error answer', async () => {
    const { app, lines } = appWithLog();
    await request(app).get('/refused/42?x=1').expect(409);
    await request(app).get('/no-such-route').expect(404);
    expect(lines.map((line) => [line.req, line.res])).toEqual([
      [
        { method: 'GET', url: '/refused/42?x=1', route: '/refused/:id' },
        { statusCode: 409, code: 'NOT_READY' },
      ],
      [{ method: 'GET', url: '/no-such-route', route: 'none' }, { statusCode: 404 }],
    ]);
  });

  it('logs at most the first LOGGED_URL_MAX_CHARS of a URL, and its length', async () => {
    const { app, lines } = appWithLog();
    const exact = `/long?q=${'a'.repeat(LOGGED_URL_MAX_CHARS - 8)}`;
    const longer = `/long?q=${'b'.repeat(10_000)}`;
    await request(app).get(exact).expect(200);
    await request(app).get(longer).expect(200);
    expect(lines.map((line) => line.req)).toEqual([
      { method: 'GET', url: exact, route: '/long' },
      { method: 'GET', url: longer.slice(0, LOGGED_URL_MAX_CHARS), urlLength: longer.length, route: '/long' },
    ]);
  });

  it('redacts a long URL before it is cut, so no part of a credential is left where the cut falls', async () => {
    const adminKey = 'admin-key-of-the-request-log-test-0123456789';
    const { app, lines } = appWithLog({ adminKey });
    for (const cut of [10, 30]) {
      // The cut falls inside the secret: its first `cut` characters would be all the line keeps of it.
      const url = `/long?q=${'c'.repeat(LOGGED_URL_MAX_CHARS - 8 - cut)}${adminKey}&r=${'d'.repeat(1000)}`;
      await request(app).get(url).expect(200);
    }
    const urls = lines.filter((line) => line.msg === 'request completed').map((line) => (line.req as { url: string }).url);
    expect(urls).toHaveLength(2);
    for (const url of urls) {
      expect(url).toHaveLength(LOGGED_URL_MAX_CHARS);
      expect(url).not.toContain(adminKey.slice(0, 10));
      expect(url).toContain('[reda');
    }
  });
});
