import { DartClient } from '../../src/upstream/dart/dart-client';
import { type DartSandbox, startDartSandbox } from './dart-sandbox';

/**
 * The size of the real corpCode.xml: the proportions hold and the real client streams every
 * entry in bounded memory. (How fast is the benchmark's business, not a timed test's.)
 */
describe('a sandbox of the real size (115,000 companies)', () => {
  let sandbox: DartSandbox | undefined;
  afterAll(() => sandbox?.close());

  it('generates the real proportions and streams all entries through the real client', async () => {
    sandbox = await startDartSandbox({ seed: 2026, companyCount: 115_000 });

    const { control } = sandbox;
    expect(control.companies()).toHaveLength(115_000);
    expect(control.listedCount('Y')).toBe(850);
    expect(control.listedCount('K')).toBe(1_800);
    expect(control.listedCount('N')).toBe(130);
    expect(control.companiesIn('delisted')).toHaveLength(1_100);

    const client = new DartClient(
      { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, requestsPerMinute: 600, requestsPerDay: 100_000, timeoutMs: 20_000, maxAttempts: 2, retryBaseMs: 10 },
      { logger: { warn: () => undefined, error: () => undefined } },
    );
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    let entries = 0;
    let withStock = 0;
    for await (const entry of client.corpCodes('stockSync')) {
      entries++;
      if (entry.stockCode !== null) withStock++;
      if (entries % 5_000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
    }

    expect(entries).toBe(115_000);
    expect(withStock).toBe(850 + 1_800 + 130 + 1_100);
    // Nothing is kept here, so growth is only the reader's working set (about a chunk of entries) plus
    // uncollected garbage; holding the document or the entries would take well over 50 MB.
    expect(peak - before).toBeLessThan(48 * 1024 * 1024);
  });
});
