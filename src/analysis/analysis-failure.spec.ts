import { createServer } from 'node:net';
import { type DartFailureMode, type DartSandbox, startDartSandbox } from '../../local/dart-sandbox/dart-sandbox';
import { rejectionOf } from '../../local/doubles/rejection';
import { DartClient } from '../upstream/dart/dart-client';
import { DartError } from '../upstream/dart/dart.types';
import { type AnalysisFailure, classifyAnalysisFailure, isDartAnswer } from './analysis-failure';
import { AnalyzerError } from './analyzers/analyzer';
import { DocumentArchiveError } from './document/zip-entries';

const TODAY = new Date('2026-03-10T03:00:00Z');

/** A port nothing listens on: a connection to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('classifyAnalysisFailure', () => {
  describe('what the DART client reports for document.xml', () => {
    let sandbox: DartSandbox;
    let served: string;
    let missing: string;

    beforeAll(async () => {
      sandbox = await startDartSandbox({ seed: 3, companyCount: 300, now: () => TODAY });
      [served, missing] = sandbox.control.filings().map((filing) => filing.rcept_no);
      sandbox.control.setDocument(missing, null);
    });
    afterAll(async () => {
      await sandbox.close();
    });
    afterEach(() => {
      sandbox.control.setKeyStatus(null);
    });

    /** The client as the analysis uses it, with one attempt per call so each failure shows as it is. */
    const client = (baseUrl = sandbox.baseUrl, apiKey = sandbox.apiKey) =>
      new DartClient(
        { baseUrl, apiKey, requestsPerMinute: 1000, requestsPerDay: 100_000, timeoutMs: 200, maxAttempts: 1, retryBaseMs: 1 },
        { logger: { warn: () => undefined, error: () => undefined } },
      );
    const failureOf = async (rceptNo = served, dart = client()) =>
      classifyAnalysisFailure(await rejectionOf(dart.document(rceptNo, 'analysisDocument'), DartError));

    it.each<[DartFailureMode]>([['800'], ['900'], ['http500'], ['hang']])(
      'reads %s as the disclosure system being out: no attempt spent',
      async (mode) => {
        sandbox.control.failNext(1, mode, 'document.xml');
        expect(await failureOf()).toEqual({ kind: 'dart-outage' });
      },
    );

    it('reads a refused connection as the disclosure system being out', async () => {
      expect(await failureOf(served, client(`http://127.0.0.1:${await closedPort()}/api`))).toEqual({ kind: 'dart-outage' });
    });

    it('reads 020 as the budget: wait until the next KST day, no attempt spent', async () => {
      sandbox.control.failNext(1, '020', 'document.xml');
      const failure = await failureOf();
      expect(failure.kind).toBe('budget');
      expect((failure as Extract<AnalysisFailure, { kind: 'budget' }>).retryAfterMs).toBeGreaterThan(0);
    });

    it.each([['011'], ['012'], ['901']])('reads %s (the key) as ours, not the filing’s', async (status) => {
      sandbox.control.setKeyStatus(status);
      expect(await failureOf()).toEqual({ kind: 'configuration' });
    });

    it('reads an unknown key (010) as ours too', async () => {
      expect(await failureOf(served, client(sandbox.baseUrl, 'not-the-key'))).toEqual({ kind: 'configuration' });
    });

    it('reads 014 as a filing without a document: terminal, and still an answer of the disclosure system', async () => {
      const error = await rejectionOf(client().document(missing, 'analysisDocument'), DartError);
      expect(classifyAnalysisFailure(error)).toEqual({ kind: 'no-document' });
      expect(isDartAnswer(error)).toBe(true);
    });

    it('does not take an outage for an answer', async () => {
      sandbox.control.failNext(1, '800', 'document.xml');
      expect(isDartAnswer(await rejectionOf(client().document(served, 'analysisDocument'), DartError))).toBe(false);
    });
  });

  it('keeps a document the disclosure system will never serve terminal (too large, not a ZIP nor a status)', () => {
    for (const status of ['TOO_LARGE', 'UNPARSABLE', 'HTTP 404', '100']) {
      const error = new DartError('request', status, 'document.xml: …');
      expect(classifyAnalysisFailure(error)).toEqual({ kind: 'no-document' });
      expect(isDartAnswer(error)).toBe(true);
    }
  });

  it('gives our own budget’s refusal its wait', () => {
    expect(classifyAnalysisFailure(new DartError('budget', 'BUSY', 'busy', 1_500))).toEqual({ kind: 'budget', retryAfterMs: 1_500 });
    expect(isDartAnswer(new DartError('budget', 'BUSY', 'busy', 1_500))).toBe(false);
  });

  it('tells the model’s outages, bad answers and our configuration apart', () => {
    expect(classifyAnalysisFailure(new AnalyzerError('outage', 'HTTP 429', 30_000))).toEqual({
      kind: 'model-outage',
      retryAfterMs: 30_000,
    });
    expect(classifyAnalysisFailure(new AnalyzerError('outage', 'timeout'))).toEqual({ kind: 'model-outage', retryAfterMs: undefined });
    expect(classifyAnalysisFailure(new AnalyzerError('bad-answer', 'not JSON'))).toEqual({ kind: 'spent' });
    expect(classifyAnalysisFailure(new AnalyzerError('configuration', 'HTTP 401'))).toEqual({ kind: 'configuration' });
    expect(isDartAnswer(new AnalyzerError('outage', 'HTTP 503'))).toBe(false);
  });

  it('spends an attempt on a document that could not be read, and on anything unforeseen', () => {
    expect(classifyAnalysisFailure(new DocumentArchiveError('the archive holds no .xml file'))).toEqual({ kind: 'spent' });
    expect(classifyAnalysisFailure(new Error('boom'))).toEqual({ kind: 'spent' });
    expect(classifyAnalysisFailure('a string')).toEqual({ kind: 'spent' });
  });
});
