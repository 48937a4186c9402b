import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DartClient } from '../../src/upstream/dart/dart-client';

// A full collection before each sample: the test measures what is kept, not when the collector happened to run.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
const liveHeap = () => {
  collectGarbage();
  return process.memoryUsage().heapUsed;
};
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
      {
        baseUrl: sandbox.baseUrl,
        apiKey: sandbox.apiKey,
        requestsPerMinute: 600,
        requestsPerDay: 100_000,
        timeoutMs: 20_000,
        maxAttempts: 2,
        retryBaseMs: 10,
      },
      { logger: { warn: () => undefined, error: () => undefined } },
    );
    const before = liveHeap();
    let peak = before;
    let entries = 0;
    let withStock = 0;
    for await (const entry of client.corpCodes('stockSync')) {
      entries++;
      if (entry.stockCode !== null) withStock++;
      // A few samples: a full collection of a busy test worker's heap can take seconds.
      if (entries % 25_000 === 0) peak = Math.max(peak, liveHeap());
    }

    expect(entries).toBe(115_000);
    expect(withStock).toBe(850 + 1_800 + 130 + 1_100);
    // Nothing is kept here, so what stays alive is the reader's working set (about a chunk of entries), far
    // below what keeping every entry holds (both measured: docs/filings-and-companies.md, "The disclosure-system client").
    expect(peak - before).toBeLessThan(8 * 1024 * 1024);
  }, 120_000);
});
