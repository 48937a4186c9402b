import express from 'express';
import { PinoLogger } from 'nestjs-pino';
import pino from 'pino';
import request from 'supertest';
import { FakeClock } from '../../test/support/fake-clock';
import { createRequestLogger } from './request-logger';

/** An Express app behind the request logger, and the lines its logger wrote; `/ok` takes 120.4 ms of the clock. */
function appWithLog() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
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
  app.get('/broken', (_req, res) => res.status(500).json({}));
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
        req: { method: 'GET', url: '/ok?a=1' },
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

  it('logs 4xx at warn, 5xx at error, and a request the client dropped as aborted; never the health probes', async () => {
    const { app, lines } = appWithLog();
    await request(app).get('/missing').expect(404);
    await request(app).get('/broken').expect(500);
    await request(app).get('/health').expect(200);
    await expect(request(app).get('/hang')).rejects.toThrow();
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((line) => [line.level, line.msg, (line.req as { url: string }).url])).toEqual([
      [40, 'request completed', '/missing'],
      [50, 'request errored', '/broken'],
      [40, 'request aborted', '/hang'],
    ]);
  });
});
