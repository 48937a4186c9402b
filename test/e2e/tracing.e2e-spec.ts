import { randomBytes } from 'node:crypto';
import { type OtlpReceiver, startOtlpReceiver } from '../../local/doubles/otlp-receiver';
import { eventually } from '../support/eventually';
import { serverFixture, startServer, waitFor } from '../support/server-process';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

/** OpenTelemetry's SpanKind.SERVER as OTLP numbers it (1 INTERNAL, 2 SERVER, 3 CLIENT). */
const SERVER = 2;
const CLIENT = 3;

/**
 * Tracing runs in the real process only: OpenTelemetry patches Node's module loader, which
 * Jest replaces in its own test processes. So the service is started as `npm start` starts it,
 * pointed at a loopback collector that reads OTLP/HTTP JSON.
 */
describe('tracing (OpenTelemetry, npm start)', () => {
  const { dataDir, running } = serverFixture('briefing-tracing-');
  let receiver: OtlpReceiver;
  let database: TestDatabase;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await receiver?.close();
    await database?.drop();
  });

  const env = () => ({ APP_ENV: 'local', PORT: '0', DATA_DIR: dataDir(), LOG_LEVEL: 'info', DATABASE_URL: database.url });

  it('continues an incoming traceparent through the route and its queries, into the log; jobs are spans of their own', async () => {
    const server = startServer({
      ...env(),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      // Export each batch within 100 ms instead of 5 s.
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    running.push(server);
    const [, port] = await waitFor(server, /listening on http:\/\/[^:]+:(\d+)/, 90_000);
    expect(server.output()).toMatch(/tracing: spans exported over OTLP/);

    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    // A read the HTTP cache has not seen yet: its handler queries PostgreSQL.
    const answer = await fetch(`http://127.0.0.1:${port}/api/v1/disclosures/recent`, {
      headers: { traceparent: `00-${traceId}-${callerSpanId}-01` },
    });
    expect(answer.status).toBe(200);

    // The server span continues the caller's trace and names the route, not the URL.
    const serverSpan = await eventually(async () =>
      receiver.spans.find((span) => span.traceId === traceId && span.kind === SERVER && span.parentSpanId === callerSpanId),
    );
    expect(serverSpan).toMatchObject({ service: 'disclosure-briefing', attributes: { 'http.route': '/api/v1/disclosures/recent' } });
    // Its queries are spans of the same trace.
    await eventually(async () =>
      receiver.spans.some(
        (span) =>
          span.traceId === traceId &&
          span.kind === CLIENT &&
          /postgres/i.test(String(span.attributes['db.system'] ?? span.attributes['db.system.name'])),
      ),
    );
    // The access line of the request carries the trace and its span.
    const accessLine = await eventually(async () =>
      server
        .output()
        .split('\n')
        .find((line) => line.includes(traceId) && line.includes('request completed')),
    );
    expect(accessLine).toMatch(/span_id/);

    // Background work: the monitor's poll is a root span of its own, and the filings it stored are named by the jobs that follow them.
    await eventually(
      async () => receiver.spans.some((span) => span.name === 'disclosure-monitor' && span.parentSpanId === '' && span.traceId !== traceId),
      60_000,
    );
    await eventually(
      async () => receiver.spans.some((span) => span.name === 'analysis' && typeof span.attributes['disclosure.rcept_no'] === 'string'),
      60_000,
    );

    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
  }, 180_000);

  it('says tracing is off and serves without it when no OTLP endpoint is set', async () => {
    const server = startServer(env());
    running.push(server);
    const [, port] = await waitFor(server, /listening on http:\/\/[^:]+:(\d+)/, 90_000);
    await waitFor(server, /tracing off: set OTEL_EXPORTER_OTLP_ENDPOINT to export spans/, 10_000);
    const traceId = randomBytes(16).toString('hex');
    const answer = await fetch(`http://127.0.0.1:${port}/api/v1/stocks/search?q=${randomBytes(3).toString('hex')}`, {
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    });
    expect(answer.status).toBe(200);
    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
    expect(receiver.spans.filter((span) => span.traceId === traceId)).toEqual([]);
  }, 180_000);
});
