import express from 'express';
import request from 'supertest';
import { FakeClock } from '../../test/support/fake-clock';
import { Metrics } from './metrics';
import { NO_ROUTE } from '../common/http/route-template';
import { recordRequestDuration } from './request-duration';

describe('recordRequestDuration', () => {
  let metrics: Metrics;
  let clock: FakeClock;
  let app: express.Express;

  beforeEach(() => {
    metrics = new Metrics();
    clock = new FakeClock();
    app = express();
    app.use(recordRequestDuration(metrics, clock));
    app.get('/items/:id', (req, res) => {
      res.status(req.params.id === 'missing' ? 404 : 200).json({ id: req.params.id });
    });
  });

  const counts = async () =>
    (await metrics.httpRequestDuration.get()).values
      .filter((value) => value.metricName === 'http_request_duration_seconds_count')
      .map(({ labels, value }) => ({ ...labels, value }));

  it('labels requests by method, route template and status, never by the raw path', async () => {
    await request(app).get('/items/1').expect(200);
    await request(app).get('/items/2').expect(200);
    await request(app).get('/items/missing').expect(404);
    await request(app).get('/elsewhere').expect(404);

    expect(await counts()).toEqual([
      { method: 'GET', route: '/items/:id', status_code: '200', value: 2 },
      { method: 'GET', route: '/items/:id', status_code: '404', value: 1 },
      { method: 'GET', route: NO_ROUTE, status_code: '404', value: 1 },
    ]);
  });

  it('times the request from its arrival to its last byte', async () => {
    app.get('/slow', (_req, res) => {
      clock.advance(40);
      res.write('half');
      // The time until the last byte counts too.
      clock.advance(10);
      res.end(' done');
    });
    await request(app).get('/slow').expect(200, 'half done');

    const { values } = await metrics.httpRequestDuration.get();
    const sum = values.find((value) => value.metricName === 'http_request_duration_seconds_sum' && value.labels.route === '/slow');
    expect(sum?.value).toBe(0.05);
  });
});
