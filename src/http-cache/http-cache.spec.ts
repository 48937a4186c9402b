import {
  BadRequestException,
  type CanActivate,
  Controller,
  Get,
  Global,
  Injectable,
  Module,
  type INestApplication,
  Post,
  Query,
  UseGuards,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Server } from 'node:http';
import request from 'supertest';
import { FakeClock } from '../../test/support/fake-clock';
import { Clock } from '../common/clock';
import { AllExceptionsFilter } from '../common/errors/all-exceptions.filter';
import { AppError } from '../common/errors/app-error';
import { ServiceExpressAdapter } from '../common/http/express-adapter';
import { HttpCache } from './http-cache.decorator';
import { HttpCacheModule } from './http-cache.module';
import { HttpCacheService } from './http-cache.service';
import { Metrics } from '../metrics/metrics';
import { type EtagFunction, HttpCacheFastLane } from './http-cache-fast-lane';
import type { Express } from 'express';

/** A clock the test moves by hand, from 09:00 KST. */
class ManualClock extends FakeClock {
  constructor() {
    super(new Date('2025-06-02T09:00:00+09:00'));
  }
}

/** What the throwaway routes did, and what the test tells them to do next. */
class Probe {
  arrivals = 0;
  executions = 0;
  /** When set, the handler throws what this returns. */
  failure?: () => unknown;
  private gate?: Promise<void>;

  private openGate?: () => void;

  /** Holds every handler execution until the returned function is called. */
  hold(): () => void {
    this.gate = new Promise<void>((resolve) => (this.openGate = resolve));
    return () => this.release();
  }

  release(): void {
    this.openGate?.();
  }

  async execute(extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    this.executions++;
    const execution = this.executions;
    if (this.gate) await this.gate;
    if (this.failure) throw this.failure();
    return { execution, ...extra };
  }
}

const probe = new Probe();

/** Counts requests that got through the guards, i.e. reached the cache. */
@Injectable()
class ArrivalCounter implements CanActivate {
  canActivate(): boolean {
    probe.arrivals++;
    return true;
  }
}

@Controller('probe')
@UseGuards(ArrivalCounter)
class ProbeController {
  @Get('items')
  @HttpCache({ ttlSeconds: 30 })
  items(@Query() query: Record<string, unknown>) {
    return probe.execute({ query });
  }

  @Post('items')
  @HttpCache({ ttlSeconds: 30 })
  create() {
    return probe.execute();
  }

  @Get('plain')
  plain() {
    return probe.execute();
  }

  @Get('today')
  @HttpCache({ ttlSeconds: 300, perKstDay: true })
  today() {
    return probe.execute();
  }
}

@Controller('company')
@HttpCache({ ttlSeconds: 600 })
class ClassWideController {
  @Get()
  profile() {
    return probe.execute();
  }

  @Get('search')
  @HttpCache({ ttlSeconds: 60 })
  search() {
    return probe.execute();
  }
}

@Controller('daily')
class DailyController {
  @Get()
  @HttpCache({ ttlSeconds: 86_400, perKstDay: true })
  today() {
    return probe.execute();
  }
}

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** The application's metrics, without the /metrics route and its configuration. */
@Global()
@Module({ providers: [Metrics], exports: [Metrics] })
class MetricsOnlyModule {}

describe('HTTP cache', () => {
  let app: INestApplication;
  let server: Server;
  let clock: ManualClock;

  beforeEach(async () => {
    Object.assign(probe, new Probe());
    clock = new ManualClock();
    const moduleRef = await Test.createTestingModule({
      imports: [HttpCacheModule, MetricsOnlyModule],
      controllers: [ProbeController, ClassWideController, DailyController],
    })
      .overrideProvider(Clock)
      .useValue(clock)
      .compile();
    // The service's adapter, which configureApp requires: it sends the cache's stored bytes.
    app = moduleRef.createNestApplication(new ServiceExpressAdapter(), { logger: false });
    // As configureApp installs it: every hit below that it can answer, it answers.
    app.use(app.get(HttpCacheFastLane).middleware((app.getHttpAdapter().getInstance() as Express).get('etag fn') as EtagFunction));
    app.useGlobalFilters(new AllExceptionsFilter());
    await app.init();
    // Listening once, so concurrent supertest requests share one port.
    await app.listen(0, '127.0.0.1');
    server = app.getHttpServer() as Server;
  });

  afterEach(async () => {
    // A failed test must not leave requests held open, or closing the server would wait for them.
    probe.release();
    await app.close();
  });

  it('answers a repeated GET from the cache without running the handler, with Cache-Control', async () => {
    const miss = await request(server).get('/probe/items?page=1').expect(200);
    const hit = await request(server).get('/probe/items?page=1').expect(200);

    expect(probe.executions).toBe(1);
    expect(hit.body).toEqual(miss.body);
    expect(miss.body).toEqual({ execution: 1, query: { page: '1' } });
    expect(miss.headers['cache-control']).toBe('public, max-age=30');
    expect(hit.headers['cache-control']).toBe('public, max-age=30');
    expect(hit.headers['content-type']).toMatch(/^application\/json/);
  });

  it('shares an entry between spellings of the same query', async () => {
    await request(server).get('/probe/items?b=2&a=1').expect(200);
    const reordered = await request(server).get('/probe/items?a=1&b=2').expect(200);
    await request(server).get('/probe/items?q=a%20b&tag=x&tag=y').expect(200);
    await request(server).get('/probe/items?tag=x&q=a+b&tag=y').expect(200);
    await request(server).get('/probe/items?tag=%78&tag=y&q=a%20b').expect(200);

    expect(probe.executions).toBe(2);
    expect(reordered.body).toEqual({ execution: 1, query: { a: '1', b: '2' } });
  });

  it('keeps different queries apart: values, order of repeated values, empty versus absent', async () => {
    const urls = [
      '/probe/items',
      '/probe/items?a=1',
      '/probe/items?a=2',
      '/probe/items?a=',
      '/probe/items?a=1&a=2',
      '/probe/items?a=2&a=1',
      '/probe/items?A=1',
    ];
    for (const url of urls) await request(server).get(url).expect(200);
    for (const url of urls) await request(server).get(url).expect(200);

    expect(probe.executions).toBe(urls.length);
  });

  it('never varies on Authorization', async () => {
    await request(server).get('/probe/items').set('Authorization', 'Bearer first').expect(200);
    await request(server).get('/probe/items').set('Authorization', 'Bearer second').expect(200);
    await request(server).get('/probe/items').expect(200);

    expect(probe.executions).toBe(1);
  });

  it('serves an entry for its TTL by the clock, then runs the handler again', async () => {
    await request(server).get('/probe/items').expect(200);

    clock.advance(30_000 - 1);
    await request(server).get('/probe/items').expect(200);
    expect(probe.executions).toBe(1);

    clock.advance(1);
    const recomputed = await request(server).get('/probe/items').expect(200);
    expect(probe.executions).toBe(2);
    expect(recomputed.body).toEqual({ execution: 2, query: {} });

    await request(server).get('/probe/items').expect(200);
    expect(probe.executions).toBe(2);
  });

  it('answers a 404 again the same way for 5 seconds, then asks the handler', async () => {
    probe.failure = () => new AppError('NOT_FOUND', 'No disclosure 20250602000123');
    const first = await request(server).get('/probe/items?rceptNo=20250602000123').expect(404);
    expect(first.body).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'No disclosure 20250602000123',
      code: 'NOT_FOUND',
    });
    expect(first.headers['cache-control']).toBe('public, max-age=5');

    // The disclosure appears, but the cached 404 still stands until its 5 seconds are over.
    probe.failure = undefined;
    clock.advance(5_000 - 1);
    const replay = await request(server).get('/probe/items?rceptNo=20250602000123').expect(404);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers['cache-control']).toBe('public, max-age=5');
    expect(probe.executions).toBe(1);

    clock.advance(1);
    const fresh = await request(server).get('/probe/items?rceptNo=20250602000123').expect(200);
    expect(fresh.body).toEqual({ execution: 2, query: { rceptNo: '20250602000123' } });
    expect(fresh.headers['cache-control']).toBe('public, max-age=30');
  });

  it('replays an HttpException with the same status and body', async () => {
    probe.failure = () => new BadRequestException('page must be a positive integer');
    const first = await request(server).get('/probe/items?page=0').expect(400);
    const replay = await request(server).get('/probe/items?page=0').expect(400);

    expect(probe.executions).toBe(1);
    expect(first.body).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'page must be a positive integer',
      code: 'BAD_REQUEST',
    });
    expect(replay.body).toEqual(first.body);
  });

  it('collapses 10 concurrent identical requests into one execution', async () => {
    const open = probe.hold();
    const all = Promise.all(Array.from({ length: 10 }, () => request(server).get('/probe/items?page=3')));
    await until(() => probe.arrivals === 10);
    await new Promise((resolve) => setImmediate(resolve));
    expect(probe.executions).toBe(1);

    open();
    const responses = await all;
    expect(probe.executions).toBe(1);
    for (const response of responses) {
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ execution: 1, query: { page: '3' } });
      expect(response.headers['cache-control']).toBe('public, max-age=30');
    }
  });

  it('gives all 10 concurrent requests the error of the single failed execution, and caches it', async () => {
    const open = probe.hold();
    probe.failure = () => new AppError('PROVIDER_UNAVAILABLE', 'The disclosure system did not answer');
    const all = Promise.all(Array.from({ length: 10 }, () => request(server).get('/probe/items?page=4')));
    await until(() => probe.arrivals === 10);
    await new Promise((resolve) => setImmediate(resolve));

    open();
    const responses = await all;
    expect(probe.executions).toBe(1);
    for (const response of responses) {
      expect(response.status).toBe(503);
      expect(response.body).toEqual({
        statusCode: 503,
        error: 'Service Unavailable',
        message: 'The disclosure system did not answer',
        code: 'PROVIDER_UNAVAILABLE',
      });
    }

    // Nothing is left in flight: once the error expires the handler runs again.
    probe.failure = undefined;
    clock.advance(5_000);
    await request(server).get('/probe/items?page=4').expect(200);
    expect(probe.executions).toBe(2);
  });

  it('shares an unexpected fault with the requests waiting for it, and caches its sanitised 500 for 5 seconds', async () => {
    const open = probe.hold();
    probe.failure = () => new Error('connection reset by peer at 10.0.0.7');
    const all = Promise.all(Array.from({ length: 10 }, () => request(server).get('/probe/items?page=5')));
    await until(() => probe.arrivals === 10);
    await new Promise((resolve) => setImmediate(resolve));

    open();
    const responses = await all;
    const sanitised = { statusCode: 500, error: 'Internal Server Error', message: 'Internal server error', code: 'INTERNAL_ERROR' };
    expect(probe.executions).toBe(1);
    for (const response of responses) {
      expect(response.status).toBe(500);
      expect(response.body).toEqual(sanitised);
      expect(response.headers['cache-control']).toBe('public, max-age=5');
    }

    probe.failure = undefined;
    clock.advance(4_999);
    const replayed = await request(server).get('/probe/items?page=5').expect(500);
    expect(replayed.body).toEqual(sanitised);
    expect(replayed.headers['cache-control']).toBe('public, max-age=5');
    expect(JSON.stringify(replayed.body)).not.toContain('10.0.0.7');
    expect(probe.executions).toBe(1);

    clock.advance(1);
    await request(server).get('/probe/items?page=5').expect(200);
    expect(probe.executions).toBe(2);
  });

  it('replays the Retry-After the filter sent with a fault it maps to 503', async () => {
    probe.failure = () => new AppError('PROVIDER_UNAVAILABLE', 'busy', {}, 7);
    const first = await request(server).get('/probe/items?page=6').expect(503);
    probe.failure = undefined;
    const replayed = await request(server).get('/probe/items?page=6').expect(503);
    expect(replayed.body).toEqual(first.body);
    expect(replayed.headers['retry-after']).toBe('7');
    expect(probe.executions).toBe(1);
  });

  it('keys a per-KST-day route by the Korean date: an answer from 23:59 KST is not served at 00:00 KST', async () => {
    // The clock starts at 09:00 KST; move it to 23:59 KST the same day.
    clock.advance(14 * 60 * 60 * 1000 + 59 * 60 * 1000);
    const before = await request(server).get('/probe/today').expect(200);
    await request(server).get('/probe/today').expect(200, before.body);
    expect(probe.executions).toBe(1);

    clock.advance(60 * 1000);
    const after = await request(server).get('/probe/today').expect(200);
    expect(after.body).toEqual({ execution: 2 });
    expect(after.headers['cache-control']).toBe('public, max-age=300');
  });

  it('never caches POST', async () => {
    const first = await request(server).post('/probe/items').expect(201);
    const second = await request(server).post('/probe/items').expect(201);

    expect(probe.executions).toBe(2);
    expect(second.body).toEqual({ execution: 2 });
    expect(first.headers['cache-control']).toBeUndefined();
    expect(second.headers['cache-control']).toBeUndefined();
  });

  it('leaves routes without @HttpCache untouched', async () => {
    const first = await request(server).get('/probe/plain').expect(200);
    await request(server).get('/probe/plain').expect(200);

    expect(probe.executions).toBe(2);
    expect(first.headers['cache-control']).toBeUndefined();
  });

  it('applies a controller-wide policy, overridden by a method policy', async () => {
    const profile = await request(server).get('/company').expect(200);
    const search = await request(server).get('/company/search').expect(200);
    await request(server).get('/company').expect(200);
    await request(server).get('/company/search').expect(200);

    expect(probe.executions).toBe(2);
    expect(profile.headers['cache-control']).toBe('public, max-age=600');
    expect(search.headers['cache-control']).toBe('public, max-age=60');
  });

  it('forgets everything on clear() and one URL on evict()', async () => {
    const cache = app.get(HttpCacheService);
    await request(server).get('/probe/items?a=1&b=2').expect(200);
    await request(server).get('/probe/items?a=9').expect(200);

    await cache.evict('/probe/items?b=2&a=1');
    await request(server).get('/probe/items?a=1&b=2').expect(200);
    await request(server).get('/probe/items?a=9').expect(200);
    expect(probe.executions).toBe(3);

    await cache.clear();
    await request(server).get('/probe/items?a=1&b=2').expect(200);
    await request(server).get('/probe/items?a=9').expect(200);
    expect(probe.executions).toBe(5);
  });

  describe('answered before routing (HttpCacheFastLane)', () => {
    /** Headers that differ from one answer to the next whatever the cache does. */
    const stable = (headers: Record<string, string>) => {
      const { date: _date, connection: _connection, 'keep-alive': _keepAlive, ...rest } = headers;
      return rest;
    };

    it('answers the hits of an unguarded route after the first with the status, headers and bytes of the miss, without reaching Nest', async () => {
      const answer = jest.spyOn(app.get(HttpCacheService), 'answer');
      const miss = await request(server).get('/company?x=1').expect(200);
      // A miss prepares nothing (most URLs are asked once); the first hit, through Nest, does.
      const firstHit = await request(server).get('/company?x=1').expect(200);
      expect(answer).toHaveBeenCalledTimes(2);
      const hit = await request(server).get('/company?x=1').expect(200);

      expect(answer).toHaveBeenCalledTimes(2);
      expect(probe.executions).toBe(1);
      for (const answered of [firstHit, hit]) {
        expect(answered.text).toBe(miss.text);
        expect(stable(answered.headers)).toEqual(stable(miss.headers));
      }
      expect(hit.headers).toMatchObject({ 'cache-control': 'public, max-age=600', etag: expect.stringMatching(/^W\/"/) });
    });

    it('leaves a route with guards to Nest, so its guards run on every hit', async () => {
      const answer = jest.spyOn(app.get(HttpCacheService), 'answer');
      await request(server).get('/probe/items').expect(200);
      await request(server).get('/probe/items').expect(200);

      expect(probe.arrivals).toBe(2);
      expect(answer).toHaveBeenCalledTimes(2);
      expect(probe.executions).toBe(1);
    });

    it('leaves conditional requests to Express, which answers 304 to a matching ETag', async () => {
      const answer = jest.spyOn(app.get(HttpCacheService), 'answer');
      const first = await request(server).get('/company').expect(200);
      await request(server).get('/company').set('If-None-Match', first.headers.etag).expect(304);

      expect(answer).toHaveBeenCalledTimes(2);
      expect(probe.executions).toBe(1);
    });

    it('stops answering a per-KST-day route at midnight KST, whatever is left of its TTL', async () => {
      await request(server).get('/daily').expect(200);
      clock.advance((14 * 60 + 59) * 60_000); // 23:59 KST
      await request(server).get('/daily').expect(200);
      expect(probe.executions).toBe(1);
      clock.advance(60_000); // 00:00 KST
      await request(server).get('/daily').expect(200);
      expect(probe.executions).toBe(2);
    });

    it('stops answering when the entry expires, and after clear()', async () => {
      await request(server).get('/company').expect(200);
      clock.advance(600_000);
      await request(server).get('/company').expect(200);
      expect(probe.executions).toBe(2);

      await app.get(HttpCacheService).clear();
      await request(server).get('/company').expect(200);
      expect(probe.executions).toBe(3);
    });
  });
});
