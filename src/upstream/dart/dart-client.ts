import { Injectable, Logger, type LoggerService } from '@nestjs/common';
import { createWriteStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { backoffMs } from '../../common/backoff';
import { type Clock, SystemClock } from '../../common/clock';
import { startOfNextKstDay } from '../../common/korea-time';
import { parseResultXml, readCorpCodeZip } from './corp-code-parser';
import { type CorpCodeEntry, type DartCompany, DartError, type DartFiling, type DartListPage, type DartListQuery } from './dart.types';
import { type DartBudget, type DartBudgetStatus, type DartPriority, LocalDartBudget } from './dart-budget';
import type { DartConfig } from './dart.config';

export type DartClientConfig = Pick<
  DartConfig,
  'baseUrl' | 'apiKey' | 'requestsPerMinute' | 'requestsPerDay' | 'timeoutMs' | 'maxAttempts' | 'retryBaseMs'
>;

export interface DartClientOptions {
  /** Times the request budget and the waits for it and between retries (monotonic); tests pass a FakeClock. */
  time?: Clock;
  /** Wall time for the daily budget (KST days); the injectable Clock in the app. */
  wallClock?: () => Date;
  /** Replaces the budget built from the configuration (e.g. one shared by every instance). */
  budget?: DartBudget;
  /** Source of the retry jitter, in [0, 1). */
  random?: () => number;
  logger?: Pick<LoggerService, 'warn' | 'error'>;
  /** Told the result of every HTTP attempt (the metrics); a DartError's kind, or `ok`. */
  onAttempt?: (endpoint: string, result: 'ok' | DartError['kind']) => void;
  /** Where corpCode.xml is downloaded to before it is read; the OS temp directory by default. */
  tempDir?: string;
  /** The largest document.xml answer accepted, in bytes; DOCUMENT_LIMIT_BYTES by default. */
  maxDocumentBytes?: number;
}

/** What one call may add to the client's own limits. */
export interface DartCallOptions {
  /**
   * The most the whole call may take on the client's clock, waits for the budget and between retries
   * included: a caller who is waiting (a public read) sets it, the jobs do not. When it passes, the
   * request in flight is aborted and the call fails `transient` (status 'DEADLINE', or the status of
   * the last failed attempt when no time is left for another one).
   */
  deadlineMs?: number;
}

export interface ListFilingsOptions {
  priority: DartPriority;
  /** Stops before the first filing for which this is true, without fetching further pages. */
  until?: (filing: DartFiling) => boolean;
}

const NO_DATA = '013';
/** document.xml's "file does not exist": the filing has no document to give. */
const NO_FILE = '014';
const CONFIGURATION_STATUSES = new Set(['010', '011', '012', '901']);
/** The key's allowance is spent: asking again today only makes it worse. */
const LIMIT_SPENT = '020';
const RETRYABLE_STATUSES = new Set(['800', '900']);
/** The status of a call its caller's deadline ended (DartCallOptions.deadlineMs). */
export const DEADLINE = 'DEADLINE';
/** How often a caller waiting for the budget looks again (the wall clock may be moved meanwhile). */
const BUDGET_RECHECK_MS = 1_000;
/** `listFilings` asks for the largest page OpenDART serves. */
const FULL_PAGE = 100;
/** An error body of corpCode.xml is a few hundred bytes; anything much larger that is not a ZIP is garbage. */
const ERROR_BODY_LIMIT = 64 * 1024;
/**
 * The largest document.xml answer accepted by default. The largest real filings (annual reports with
 * every attachment) zip to a few MB; ten times that is a broken or hostile answer, not a document.
 */
export const DOCUMENT_LIMIT_BYTES = 50 * 1024 * 1024;

const FILING_FIELDS = ['corp_code', 'corp_name', 'stock_code', 'corp_cls', 'report_nm', 'rcept_no', 'flr_nm', 'rcept_dt', 'rm'] as const;
const COMPANY_FIELDS = [
  'corp_code',
  'corp_name',
  'corp_name_eng',
  'stock_name',
  'stock_code',
  'ceo_nm',
  'corp_cls',
  'jurir_no',
  'bizr_no',
  'adres',
  'hm_url',
  'ir_url',
  'phn_no',
  'fax_no',
  'induty_code',
  'est_dt',
  'acc_mt',
] as const;

type JsonBody = Record<string, unknown>;

interface CallDeadline {
  /** Aborted when the deadline passes; absent without one. */
  signal?: AbortSignal;
  /** Milliseconds until the deadline. */
  leftMs(): number;
  /** `work`, or a DEADLINE error as soon as the deadline passes. */
  race<W>(work: Promise<W>): Promise<W>;
}

/**
 * The OpenDART endpoints the service uses. Every call states its priority and every
 * request waits for the shared budget (per minute and per KST day), has a timeout,
 * and is retried with exponential backoff when the failure is temporary (800, 900,
 * HTTP 5xx, network, timeout). 020 closes the budget until the next KST day instead.
 * The API key travels only in request URLs: never in logs or error messages.
 */
@Injectable()
export class DartClient {
  private readonly budget: DartBudget;
  private readonly time: Clock;
  private readonly random: () => number;
  private readonly logger: Pick<LoggerService, 'warn' | 'error'>;
  private readonly wallClock: () => Date;
  private readonly baseUrl: string;

  constructor(
    private readonly config: DartClientConfig,
    private readonly options: DartClientOptions = {},
  ) {
    this.time = options.time ?? new SystemClock();
    this.wallClock = options.wallClock ?? (() => new Date());
    this.budget =
      options.budget ??
      new LocalDartBudget(
        { requestsPerMinute: config.requestsPerMinute, requestsPerDay: config.requestsPerDay },
        this.wallClock,
        this.time,
      );
    this.random = options.random ?? Math.random;
    this.logger = options.logger ?? new Logger(DartClient.name);
    this.baseUrl = config.baseUrl.replace(/\/+$/, '');
  }

  /** The budget as the admin statuses show it. */
  budgetStatus(): DartBudgetStatus {
    return this.budget.status();
  }

  /**
   * Runs `call` until it is not refused by the budget: a background job that meets a
   * spent day (or a full line) waits, rather than failing its work. Other errors, and
   * a refusal once `isStopped()`, are thrown.
   */
  async whenBudgetAllows<T>(call: () => Promise<T>, isStopped: () => boolean): Promise<T> {
    for (;;) {
      try {
        return await call();
      } catch (error) {
        if (!(error instanceof DartError) || error.kind !== 'budget' || isStopped()) throw error;
        // Short naps: a refused call costs nothing upstream, and a moved clock or a shutdown is seen soon.
        await this.time.sleep(Math.min(Math.max(error.retryAfterMs ?? 0, 1), BUDGET_RECHECK_MS));
      }
    }
  }

  /** One page of `list.json`; 013 (no data) is an empty page. */
  async listPage(query: DartListQuery, priority: DartPriority): Promise<DartListPage> {
    const { status, body } = await this.callJson('list.json', priority, {
      corp_code: query.corpCode,
      bgn_de: query.bgnDe,
      end_de: query.endDe,
      corp_cls: query.corpCls,
      last_reprt_at: query.lastReprtAt,
      page_no: query.pageNo?.toString(),
      page_count: query.pageCount?.toString(),
    });
    if (status === NO_DATA) {
      return { pageNo: query.pageNo ?? 1, pageCount: query.pageCount ?? 10, totalCount: 0, totalPage: 0, items: [] };
    }
    const rows = body.list ?? [];
    if (!Array.isArray(rows) || rows.some((row) => typeof row !== 'object' || row === null)) {
      throw unparsable('list.json', '`list` is not an array of rows');
    }
    return {
      pageNo: integerField(body, 'page_no'),
      pageCount: integerField(body, 'page_count'),
      totalCount: integerField(body, 'total_count'),
      totalPage: integerField(body, 'total_page'),
      items: rows.map((row) => pickStrings(row as JsonBody, FILING_FIELDS) as DartFiling),
    };
  }

  /**
   * Every filing matching `query` (its `pageNo` and `pageCount` are ignored), newest
   * first as OpenDART orders them, fetched 100 a page as the consumer reads.
   * A filing published while we page pushes older rows one place down, so the last
   * row of a page can come back on the next one; such repeats are skipped.
   */
  async *listFilings(query: DartListQuery, options: ListFilingsOptions): AsyncGenerator<DartFiling> {
    const seen = new Set<string>();
    let totalPage = 1;
    for (let pageNo = 1; pageNo <= totalPage; pageNo++) {
      const page = await this.listPage({ ...query, pageNo, pageCount: FULL_PAGE }, options.priority);
      totalPage = page.totalPage;
      for (const filing of page.items) {
        if (seen.has(filing.rcept_no)) continue;
        if (options.until?.(filing)) return;
        seen.add(filing.rcept_no);
        yield filing;
      }
    }
  }

  /**
   * The entries of `corpCode.xml`, one by one. The ZIP (tens of MB of XML inside)
   * goes to a temporary file, removed afterwards however the reading ends, and is
   * inflated and parsed as a stream.
   */
  async *corpCodes(priority: DartPriority): AsyncGenerator<CorpCodeEntry> {
    const dir = await mkdtemp(path.join(this.options.tempDir ?? tmpdir(), 'dart-corp-codes-'));
    try {
      const zipPath = path.join(dir, 'corpCode.zip');
      await this.call('corpCode.xml', priority, {}, {}, (response) => this.saveZip(response, zipPath));
      try {
        yield* readCorpCodeZip(zipPath);
      } catch (error) {
        throw error instanceof DartError ? error : unparsable('corpCode.xml', describe(error));
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** `company.json`; null when OpenDART knows no such company (013). */
  async company(corpCode: string, priority: DartPriority, options: DartCallOptions = {}): Promise<DartCompany | null> {
    const { status, body } = await this.callJson('company.json', priority, { corp_code: corpCode }, options);
    if (status === NO_DATA) return null;
    return pickStrings(body, COMPANY_FIELDS) as DartCompany;
  }

  /**
   * `document.xml`: the ZIP of the filing's document (`{rcept_no}.xml`, sometimes attachments such
   * as `{rcept_no}_00760.xml`), as received. Held in memory, so the answer is bounded by
   * `maxDocumentBytes` (a `request` error 'TOO_LARGE' above it, not retried: the file will not shrink).
   * 014 is a `missing` error, thrown at once: the filing has no document, asking again will not help.
   */
  async document(rceptNo: string, priority: DartPriority): Promise<Buffer> {
    return this.call('document.xml', priority, { rcept_no: rceptNo }, {}, async (response) => {
      const body = await this.readBounded(response, 'document.xml', this.options.maxDocumentBytes ?? DOCUMENT_LIMIT_BYTES);
      if (isZip(body)) return body;
      const result = body.length <= ERROR_BODY_LIMIT ? parseResultXml(body.toString('utf8')) : null;
      if (result === null) throw unparsable('document.xml', 'the body is neither a ZIP nor a status document');
      if (result.status === NO_FILE) {
        throw new DartError(
          'missing',
          NO_FILE,
          this.redact(`document.xml has no file for ${rceptNo} (014${result.message ? `: ${result.message}` : ''})`),
        );
      }
      throw this.errorFor('document.xml', result.status, result.message);
    });
  }

  /** A JSON endpoint whose body answered 000 or 013; every other status is thrown. */
  private callJson(
    endpoint: string,
    priority: DartPriority,
    params: Record<string, string | undefined>,
    options: DartCallOptions = {},
  ): Promise<{ status: string; body: JsonBody }> {
    return this.call(endpoint, priority, params, options, async (response) => {
      const text = await response.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw unparsable(endpoint, 'the body is not JSON');
      }
      if (typeof body !== 'object' || body === null || typeof (body as JsonBody).status !== 'string') {
        throw unparsable(endpoint, 'the body has no status');
      }
      const { status, message } = body as { status: string; message?: unknown };
      if (status === '000' || status === NO_DATA) return { status, body: body as JsonBody };
      throw this.errorFor(endpoint, status, typeof message === 'string' ? message : '');
    });
  }

  /**
   * One logical call: waits for the budget before every attempt and retries
   * transient failures up to `maxAttempts` attempts in total, all within `deadlineMs` when given.
   */
  private async call<T>(
    endpoint: string,
    priority: DartPriority,
    params: Record<string, string | undefined>,
    options: DartCallOptions,
    read: (response: Response) => Promise<T>,
  ): Promise<T> {
    const apiKey = this.config.apiKey;
    if (!apiKey) throw new DartError('configuration', 'NO_KEY', 'DART_API_KEY is not set');
    const url = new URL(`${this.baseUrl}/${endpoint}`);
    url.searchParams.set('crtfc_key', apiKey);
    for (const [name, value] of Object.entries(params)) {
      if (value !== undefined) url.searchParams.set(name, value);
    }

    const deadline = this.deadlineOf(endpoint, options.deadlineMs);
    for (let attempt = 1; ; attempt++) {
      await deadline.race(this.budget.acquire(priority));
      try {
        return await this.attempt(endpoint, url, read, deadline.signal);
      } catch (error) {
        // Awaited: once the caller sees the 020, no instance of the fleet calls again today.
        if (error instanceof DartError && error.kind === 'budget' && error.status === LIMIT_SPENT) await this.budget.reportLimitReached();
        if (!(error instanceof DartError) || error.kind !== 'transient' || error.status === DEADLINE) throw error;
        const attempts = this.config.maxAttempts;
        if (attempt >= attempts) {
          throw new DartError('transient', error.status, `${error.message} (gave up after ${attempt} attempts)`);
        }
        // Up to 20 % jitter, so retrying clients spread out.
        const delayMs = backoffMs(attempt, { baseMs: this.config.retryBaseMs, jitter: 0.2, random: this.random });
        // A wait that would end past the deadline is not begun: the caller hears the failure now.
        if (deadline.leftMs() <= delayMs) {
          throw new DartError('transient', error.status, `${error.message} (no time left for attempt ${attempt + 1} within the deadline)`);
        }
        this.logger.warn(`${endpoint}: ${error.status} on attempt ${attempt} of ${attempts}; retrying in ${delayMs} ms`);
        await deadline.race(this.time.sleep(delayMs));
      }
    }
  }

  /**
   * The deadline of one call, on the client's clock: `race` ends a wait with a DEADLINE error
   * once it passes (a budget slot granted after that is left unused), and `signal` aborts the
   * request in flight. Without `deadlineMs`, nothing is bounded beyond the client's own limits.
   */
  private deadlineOf(endpoint: string, deadlineMs: number | undefined): CallDeadline {
    if (deadlineMs === undefined) return { race: (work) => work, leftMs: () => Infinity };
    const endsAt = this.time.monotonicMs() + deadlineMs;
    const controller = new AbortController();
    const passed = () => new DartError('transient', DEADLINE, `${endpoint}: no answer within the caller's deadline of ${deadlineMs} ms`);
    // The timer outlives a call that ends sooner; firing then aborts nobody.
    void this.time.sleep(deadlineMs).then(() => controller.abort(passed()));
    return {
      signal: controller.signal,
      leftMs: () => endsAt - this.time.monotonicMs(),
      race: async <W>(work: Promise<W>): Promise<W> => {
        // Whatever `work` does after the deadline is observed by nobody: never an unhandled rejection.
        work.catch(() => undefined);
        if (controller.signal.aborted) throw passed();
        let onAbort!: () => void;
        const aborted = new Promise<never>((_, reject) => {
          onAbort = () => reject(passed());
          controller.signal.addEventListener('abort', onAbort, { once: true });
        });
        try {
          return await Promise.race([work, aborted]);
        } finally {
          controller.signal.removeEventListener('abort', onAbort);
        }
      },
    };
  }

  private async attempt<T>(endpoint: string, url: URL, read: (response: Response) => Promise<T>, deadline?: AbortSignal): Promise<T> {
    try {
      const answer = await this.fetchAndRead(endpoint, url, read, deadline);
      this.options.onAttempt?.(endpoint, 'ok');
      return answer;
    } catch (error) {
      this.options.onAttempt?.(endpoint, error instanceof DartError ? error.kind : 'transient');
      throw error;
    }
  }

  private async fetchAndRead<T>(endpoint: string, url: URL, read: (response: Response) => Promise<T>, deadline?: AbortSignal): Promise<T> {
    // One deadline for the headers and the whole body: a stalled download must end too.
    const signal = AbortSignal.timeout(this.config.timeoutMs);
    try {
      const response = await fetch(url, { signal: deadline ? AbortSignal.any([signal, deadline]) : signal });
      if (!response.ok) {
        await response.body?.cancel();
        const status = `HTTP ${response.status}`;
        // 429 is a gateway's way of saying 020.
        if (response.status >= 500 || response.status === 429) throw new DartError('transient', status, `${endpoint}: ${status}`);
        throw new DartError('request', status, `${endpoint}: ${status}`);
      }
      return await read(response);
    } catch (error) {
      if (error instanceof DartError) throw error;
      // The caller's deadline passed: its DEADLINE error, whatever fetch made of the abort.
      if (deadline?.aborted) throw deadline.reason as DartError;
      if (signal.aborted) throw new DartError('transient', 'TIMEOUT', `${endpoint}: no complete answer within ${this.config.timeoutMs} ms`);
      throw new DartError('transient', 'NETWORK', this.redact(`${endpoint}: ${describe(error)}`));
    }
  }

  /** Writes the corpCode.xml body to `zipPath`; an XML body instead of a ZIP is an error status. */
  private async saveZip(response: Response, zipPath: string): Promise<void> {
    if (response.body === null) throw unparsable('corpCode.xml', 'the body is empty');
    await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), createWriteStream(zipPath));

    const file = await open(zipPath, 'r');
    let head: Buffer;
    try {
      const { bytesRead, buffer } = await file.read(Buffer.alloc(ERROR_BODY_LIMIT), 0, ERROR_BODY_LIMIT, 0);
      head = buffer.subarray(0, bytesRead);
    } finally {
      await file.close();
    }
    if (isZip(head)) return;

    const result = parseResultXml(head.toString('utf8'));
    if (result === null) throw unparsable('corpCode.xml', 'the body is neither a ZIP nor a status document');
    throw this.errorFor('corpCode.xml', result.status, result.message);
  }

  /** The whole body, refused as soon as it is known to exceed `limit` bytes (declared or counted). */
  private async readBounded(response: Response, endpoint: string, limit: number): Promise<Buffer> {
    const tooLarge = (): DartError =>
      new DartError('request', 'TOO_LARGE', `${endpoint}: the answer is larger than the ${limit} bytes accepted`);
    if (Number(response.headers.get('content-length')) > limit) {
      await response.body?.cancel();
      throw tooLarge();
    }
    if (response.body === null) return Buffer.alloc(0);
    const parts: Buffer[] = [];
    let size = 0;
    // Counted as it arrives: a body without Content-Length (chunked) is bounded too. Leaving the loop cancels the download.
    for await (const chunk of response.body as WebReadableStream<Uint8Array>) {
      size += chunk.length;
      if (size > limit) throw tooLarge();
      parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    }
    return Buffer.concat(parts, size);
  }

  private errorFor(endpoint: string, status: string, message: string): DartError {
    const text = this.redact(`${endpoint} answered ${status}${message ? `: ${message}` : ''}`);
    if (CONFIGURATION_STATUSES.has(status)) return new DartError('configuration', status, text);
    if (status === LIMIT_SPENT) {
      // `call` reports it to the budget before the error leaves the client.
      const now = this.wallClock();
      const until = startOfNextKstDay(now);
      this.logger.error(`${text}: the key's daily allowance is spent; no calls until ${until.toISOString()}`);
      return new DartError('budget', status, text, until.getTime() - now.getTime());
    }
    if (RETRYABLE_STATUSES.has(status)) return new DartError('transient', status, text);
    return new DartError('request', status, text);
  }

  /** Defence in depth: text that came from elsewhere (an upstream message, a network error) never carries the key. */
  private redact(text: string): string {
    const key = this.config.apiKey;
    return key ? text.split(key).join('***') : text;
  }
}

/** Every ZIP starts with the local file header signature "PK". */
function isZip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x50 && head[1] === 0x4b;
}

function unparsable(endpoint: string, why: string): DartError {
  return new DartError('request', 'UNPARSABLE', `${endpoint}: unexpected answer (${why})`);
}

function integerField(body: JsonBody, name: string): number {
  const value = Number(body[name]);
  if (!Number.isInteger(value) || value < 0) throw unparsable('list.json', `\`${name}\` is not a count`);
  return value;
}

/** Copies the named fields as strings; upstream additions are dropped, missing ones become ''. */
function pickStrings<F extends string>(source: JsonBody, fields: readonly F[]): Record<F, string> {
  const picked = {} as Record<F, string>;
  for (const field of fields) {
    const value = source[field];
    picked[field] = value === undefined || value === null ? '' : String(value as string | number);
  }
  return picked;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // fetch reports "fetch failed" and hides the reason (ECONNREFUSED, ECONNRESET…) in `cause`.
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : undefined;
  return detail ? `${error.message} (${detail})` : error.message;
}
