import { callResultOf, failureFromStatus, retryAfterMs } from './model-call';

const NOW = Date.parse('2026-03-02T01:00:00Z');
const headers = (values: Record<string, string>) => new Headers(values);

describe('failureFromStatus', () => {
  it.each([408, 409, 429, 500, 502, 503, 529])('reads HTTP %i as the model being unavailable', (status) => {
    const error = failureFromStatus('the API', status, 'busy');
    expect(error.failure).toBe('outage');
    expect(callResultOf(error)).toBe('transient');
  });

  it.each([400, 401, 403, 404, 422])('reads HTTP %i as our configuration, which no retry fixes', (status) => {
    const error = failureFromStatus('the API', status, 'no', headers({ 'retry-after': '5' }));
    expect(error.failure).toBe('configuration');
    expect(error.retryAfterMs).toBeUndefined();
    expect(callResultOf(error)).toBe('permanent');
  });

  it('carries the wait of a rate limit, and none without the header', () => {
    expect(failureFromStatus('the API', 429, 'slow down', headers({ 'retry-after': '12' }), NOW).retryAfterMs).toBe(12_000);
    expect(failureFromStatus('the API', 429, 'slow down', headers({}), NOW).retryAfterMs).toBeUndefined();
    expect(failureFromStatus('the API', 503, 'down').retryAfterMs).toBeUndefined();
  });
});

describe('retryAfterMs', () => {
  it('prefers retry-after-ms, rounded up', () => {
    expect(retryAfterMs(headers({ 'retry-after-ms': '250.4', 'retry-after': '9' }), NOW)).toBe(251);
  });

  it('reads Retry-After in seconds, fractions included', () => {
    expect(retryAfterMs(headers({ 'retry-after': '30' }), NOW)).toBe(30_000);
    expect(retryAfterMs(headers({ 'retry-after': ' 1.5 ' }), NOW)).toBe(1_500);
    expect(retryAfterMs(headers({ 'retry-after': '0' }), NOW)).toBe(0);
  });

  it('reads Retry-After as an HTTP date, from now; a past date is no wait', () => {
    expect(retryAfterMs(headers({ 'retry-after': 'Mon, 02 Mar 2026 01:02:00 GMT' }), NOW)).toBe(120_000);
    expect(retryAfterMs(headers({ 'retry-after': 'Mon, 02 Mar 2026 00:59:00 GMT' }), NOW)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    expect(retryAfterMs(headers({}), NOW)).toBeUndefined();
    expect(retryAfterMs(headers({ 'retry-after': 'soon' }), NOW)).toBeUndefined();
    expect(retryAfterMs(headers({ 'retry-after': '-5' }), NOW)).toBeUndefined();
    expect(retryAfterMs(headers({ 'retry-after-ms': 'x', 'retry-after': '2' }), NOW)).toBe(2_000);
  });
});
