import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CorpClass, DartFiling } from '../../src/upstream/dart/dart.types';
import { buildCorpCodeZip, escapeXml } from './corp-code-document';
import { addMonths, isCalendarDate, kstDate } from '../../src/common/korea-time';
import { type Board, type Market, type SandboxCompany, SandboxData } from './sandbox-data';
import { type DocumentEncoding, type SandboxDocument, SandboxDocuments } from './sandbox-documents';

export type { Board, Market, SandboxCompany } from './sandbox-data';
export type { DocumentEncoding, DocumentSize, MarkupDefect, SandboxDocument, SandboxDocumentKind } from './sandbox-documents';
export { MIN_COMPANY_COUNT } from './sandbox-data';

export interface DartSandboxOptions {
  /** Same seed, same companies and filings. Default 1. */
  seed?: number;
  /** corpCode.xml entries, at least MIN_COMPANY_COUNT. Default 20,000 (the real file has about 115,000). */
  companyCount?: number;
  /** Business days of this many past calendar days carry filings. Default 120. */
  pastDays?: number;
  /** Average filings per business day (the real system sees 500–600). Default 40; today starts with half. */
  filingsPerBusinessDay?: number;
  /** Publishes a filing dated today every so many ms while running; 0 (default) never. */
  newFilingEveryMs?: number;
  /** The sandbox's clock; "today" is its date in KST. */
  now?: () => Date;
  /** Delay before every answer. Default 0. */
  latencyMs?: number;
  /** The only `crtfc_key` accepted. Default 'sandbox-key'. */
  apiKey?: string;
  /** Default 0: any free port. */
  port?: number;
}

/** How `failNext` breaks a request: an upstream status, an HTTP 500, or no answer at all. */
export type DartFailureMode = '020' | '800' | '900' | '011' | 'http500' | 'hang';

export interface SandboxRequest {
  /** e.g. '/api/list.json' */
  path: string;
  query: Record<string, string>;
  /** Wall-clock arrival time (not the sandbox clock). */
  at: Date;
}

export interface DartSandboxControl {
  /** Adds a filing (today's, by a random listed company, unless `partial` says otherwise) and returns its row. */
  publishFiling(partial?: Partial<DartFiling>): DartFiling;
  /** Adds a company (unlisted with a generated name unless `partial` says otherwise). */
  addCompany(partial?: Partial<SandboxCompany>): SandboxCompany;
  renameCompany(corpCode: string, name: string): SandboxCompany;
  /** Lists the company on a board; one without a stock code gets one. */
  moveBoard(corpCode: string, board: Board): SandboxCompany;
  /** Marks a listed company delisted; it keeps its stock code. */
  delist(corpCode: string): SandboxCompany;
  /** The next `count` requests (any endpoint) fail this way, before the key is even checked. */
  failNext(count: number, mode: DartFailureMode, endpoint?: Endpoint): void;
  /** Every call answers this status (e.g. '011' suspended key, '020' over the limit) until set back to null. */
  setKeyStatus(status: string | null): void;
  /** Every request received, oldest first. */
  readonly requests: readonly SandboxRequest[];
  clearRequests(): void;
  companies(): readonly SandboxCompany[];
  company(corpCode: string): SandboxCompany | undefined;
  companiesIn(market: Market): SandboxCompany[];
  /** Companies on a board (Y, K or N), or on any board. */
  listedCount(board?: Board): number;
  /** Every filing, newest first. */
  filings(): readonly DartFiling[];
  /** Today in KST, YYYYMMDD. */
  today(): string;
  /** The corpCode.xml archive as served (built on first use, kept until a company changes). */
  corpCodeZip(): Promise<Buffer>;
  /**
   * What document.xml serves for a filing (generated on first use): its kind, main markup, encoding,
   * defects and attachments. Undefined for a receipt number that is neither a filing nor set.
   */
  documentOf(rceptNo: string): SandboxDocument | undefined;
  /** Serves exactly `xml`, encoded in `encoding` (UTF-8 by default), as the filing's only document file; null answers 014. */
  setDocument(rceptNo: string, xml: string | null, encoding?: DocumentEncoding): SandboxDocument;
  /** The document.xml archive as served; null when the answer is 014. */
  documentZip(rceptNo: string): Promise<Buffer | null>;
}

export interface DartSandbox {
  /** e.g. 'http://127.0.0.1:41234/api', to use as DART_API_BASE_URL. */
  baseUrl: string;
  apiKey: string;
  control: DartSandboxControl;
  close(): Promise<void>;
}

const MESSAGES: Record<string, string> = {
  '000': '정상',
  '010': '등록되지 않은 키입니다.',
  '011': '사용할 수 없는 키입니다. 오픈API에 등록되었으나, 일시적으로 사용 중지된 키를 통하여 검색하는 경우 발생합니다.',
  '012': '접근할 수 없는 IP입니다.',
  '013': '조회된 데이타가 없습니다.',
  '014': '파일이 존재하지 않습니다.',
  '020': '요청 제한을 초과하였습니다.',
  '021': '조회 가능한 회사 개수가 초과하였습니다.(최대 100건)',
  '100': '필드의 부적절한 값입니다. 필드 설명에 없는 값을 사용한 경우에 발생하는 메시지입니다.',
  '101': '부적절한 접근입니다.',
  '800': '시스템 점검으로 인한 서비스가 중지 중입니다.',
  '900': '정의되지 않은 오류가 발생하였습니다.',
  '901': '사용자 계정의 개인정보 보유기간이 만료되어 사용할 수 없는 키입니다. 관리자 이메일(opendart@fss.or.kr)로 문의하시기 바랍니다.',
};

const ENDPOINTS = ['list.json', 'corpCode.xml', 'company.json', 'document.xml'] as const;
export type Endpoint = (typeof ENDPOINTS)[number];
/** Endpoints that answer a ZIP, and so their errors as an XML status document. */
const ZIP_ENDPOINTS: readonly Endpoint[] = ['corpCode.xml', 'document.xml'];
const PATH_PREFIX = '/api/';
const CORP_CLASSES: readonly string[] = ['Y', 'K', 'N', 'E'] satisfies CorpClass[];
const BOARDS: readonly Board[] = ['Y', 'K', 'N'];

/** An answer that is not the payload: a status body (HTTP 200, as upstream does it). */
class StatusAnswer {
  constructor(
    readonly status: string,
    readonly detail?: string,
  ) {}
}

/**
 * A local OpenDART: `list.json`, `corpCode.xml`, `company.json` and `document.xml`
 * over real HTTP on 127.0.0.1, with generated data that looks and behaves like the
 * real thing (statuses in the body, the 3-month rule, paging, a ZIP of CORPCODE.xml,
 * filing documents in DART's markup, some broken, some EUC-KR, some missing), and a
 * control surface for tests to change the data and inject failures.
 */
export async function startDartSandbox(options: DartSandboxOptions = {}): Promise<DartSandbox> {
  const apiKey = options.apiKey ?? 'sandbox-key';
  const now = options.now ?? (() => new Date());
  const today = (): string => kstDate(now());
  const latencyMs = options.latencyMs ?? 0;

  const seed = options.seed ?? 1;
  const data = new SandboxData({
    seed,
    companyCount: options.companyCount ?? 20_000,
    pastDays: options.pastDays ?? 120,
    filingsPerBusinessDay: options.filingsPerBusinessDay ?? 40,
    today,
  });

  const documents = new SandboxDocuments(seed, (rceptNo) => {
    const filing = data.filing(rceptNo);
    if (filing === undefined) return undefined;
    const company = data.company(filing.corp_code);
    return { filing, company: company === undefined ? undefined : data.details(company) };
  });

  const requests: SandboxRequest[] = [];
  /** Queued failures; one with an endpoint waits for a request to that endpoint. */
  const failures: { mode: DartFailureMode; endpoint?: string }[] = [];
  let keyStatus: string | null = null;
  const hanging = new Set<ServerResponse>();
  let zip: { version: number; archive: Promise<Buffer> } | null = null;

  const corpCodeZip = (): Promise<Buffer> => {
    if (zip === null || zip.version !== data.version) {
      const archive = buildCorpCodeZip(data.companies(), now());
      zip = { version: data.version, archive };
      // A failed build is not cached.
      archive.catch(() => {
        if (zip?.archive === archive) zip = null;
      });
    }
    return zip.archive;
  };

  const listJson = (query: Record<string, string>): object | StatusAnswer => {
    const endDe = query.end_de ?? today();
    const bgnDe = query.bgn_de ?? endDe;
    if (!isCalendarDate(bgnDe) || !isCalendarDate(endDe) || bgnDe > endDe) return new StatusAnswer('100', 'bgn_de/end_de');
    const corpCode = query.corp_code;
    if (corpCode !== undefined && !/^\d{8}$/.test(corpCode)) return new StatusAnswer('100', 'corp_code');
    // Without a company the upstream refuses ranges longer than three calendar months.
    if (corpCode === undefined && endDe > addMonths(bgnDe, 3)) return new StatusAnswer('100', '검색기간 3개월 초과');
    const corpCls = query.corp_cls;
    if (corpCls !== undefined && !CORP_CLASSES.includes(corpCls)) return new StatusAnswer('100', 'corp_cls');
    const lastReport = query.last_reprt_at ?? 'N';
    if (lastReport !== 'Y' && lastReport !== 'N') return new StatusAnswer('100', 'last_reprt_at');
    const pageNo = positiveInteger(query.page_no ?? '1');
    const pageCount = positiveInteger(query.page_count ?? '10');
    if (pageNo === null) return new StatusAnswer('100', 'page_no');
    if (pageCount === null || pageCount > 100) return new StatusAnswer('100', 'page_count');

    const rows = data.query({ bgnDe, endDe, corpCode, corpCls: corpCls as CorpClass | undefined, latestOnly: lastReport === 'Y' });
    if (rows.length === 0) return new StatusAnswer('013');
    return {
      status: '000',
      message: MESSAGES['000'],
      page_no: pageNo,
      page_count: pageCount,
      total_count: rows.length,
      total_page: Math.ceil(rows.length / pageCount),
      list: rows.slice((pageNo - 1) * pageCount, pageNo * pageCount),
    };
  };

  const companyJson = (query: Record<string, string>): object | StatusAnswer => {
    const corpCode = query.corp_code;
    if (corpCode === undefined || !/^\d{8}$/.test(corpCode)) return new StatusAnswer('100', 'corp_code');
    const company = data.company(corpCode);
    if (company === undefined) return new StatusAnswer('013');
    return { status: '000', message: MESSAGES['000'], ...data.details(company) };
  };

  /**
   * `POST /sandbox/filings` with `{ "corp_code": "…" }` (or nothing, for any listed company):
   * publishes a filing dated today now, as `control.publishFiling` does, so a person trying the
   * service (the README tour) can make a watched company file. Not part of the real API.
   */
  const publishOnRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST') return sendText(res, 405, 'Method Not Allowed');
    let text = '';
    for await (const chunk of req) {
      text += String(chunk);
      if (text.length > 1024) return sendText(res, 413, 'Payload Too Large');
    }
    let corpCode: unknown;
    try {
      corpCode = text.trim() === '' ? undefined : (JSON.parse(text) as { corp_code?: unknown }).corp_code;
    } catch {
      return sendText(res, 400, 'the body is not JSON');
    }
    if (corpCode !== undefined && (typeof corpCode !== 'string' || !/^\d{8}$/.test(corpCode))) {
      return sendText(res, 400, 'corp_code must be 8 digits');
    }
    if (corpCode !== undefined && data.company(corpCode) === undefined) return sendText(res, 404, `no company ${corpCode}`);
    const filing = data.publishFiling(corpCode === undefined ? {} : { corp_code: corpCode });
    res.writeHead(201, { 'Content-Type': 'application/json;charset=UTF-8' });
    res.end(JSON.stringify(filing));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const query = Object.fromEntries(url.searchParams);
    requests.push({ path: url.pathname, query, at: new Date() });

    if (url.pathname === CONTROL_FILINGS_PATH) return publishOnRequest(req, res);
    const endpoint = url.pathname.startsWith(PATH_PREFIX) ? url.pathname.slice(PATH_PREFIX.length) : '';
    if (!isEndpoint(endpoint)) return sendText(res, 404, 'Not Found');
    if (req.method !== 'GET') return sendText(res, 405, 'Method Not Allowed');
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));

    const failureAt = failures.findIndex((queued) => queued.endpoint === undefined || queued.endpoint === endpoint);
    const failure = failureAt === -1 ? undefined : failures.splice(failureAt, 1)[0].mode;
    if (failure === 'hang') {
      // Never answered; closed when the client gives up or the sandbox closes.
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (failure === 'http500') return sendText(res, 500, 'Internal Server Error');
    if (failure !== undefined) return sendStatus(res, endpoint, new StatusAnswer(failure));

    if (query.crtfc_key !== apiKey) return sendStatus(res, endpoint, new StatusAnswer('010'));
    if (keyStatus !== null) return sendStatus(res, endpoint, new StatusAnswer(keyStatus));

    if (endpoint === 'corpCode.xml') {
      const archive = await corpCodeZip();
      res.writeHead(200, {
        'Content-Type': 'application/x-msdownload',
        'Content-Disposition': 'attachment; filename=CORPCODE.zip',
        'Content-Length': archive.length,
      });
      res.end(archive);
      return;
    }
    if (endpoint === 'document.xml') {
      const rceptNo = query.rcept_no;
      if (rceptNo === undefined || !/^\d{14}$/.test(rceptNo)) return sendStatus(res, endpoint, new StatusAnswer('100', 'rcept_no'));
      // No file, or no such filing: the upstream answers 014 for both.
      const archive = await documents.zip(rceptNo);
      if (archive === null) return sendStatus(res, endpoint, new StatusAnswer('014'));
      res.writeHead(200, {
        'Content-Type': 'application/x-msdownload',
        'Content-Disposition': `attachment; filename=${rceptNo}.zip`,
        'Content-Length': archive.length,
      });
      res.end(archive);
      return;
    }
    const answer = endpoint === 'list.json' ? listJson(query) : companyJson(query);
    if (answer instanceof StatusAnswer) return sendStatus(res, endpoint, answer);
    sendJson(res, answer);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) sendText(res, 500, 'Internal Server Error');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const newFilingEveryMs = options.newFilingEveryMs ?? 0;
  const publisher = newFilingEveryMs > 0 ? setInterval(() => data.publishFiling(), newFilingEveryMs) : null;
  // The sandbox never keeps a process alive on its own account.
  publisher?.unref();

  const control: DartSandboxControl = {
    publishFiling: (partial) => data.publishFiling(partial),
    addCompany: (partial) => data.addCompany(partial),
    renameCompany: (corpCode, name) => data.renameCompany(corpCode, name),
    moveBoard: (corpCode, board) => data.moveBoard(corpCode, board),
    delist: (corpCode) => data.delist(corpCode),
    failNext: (count, mode, endpoint) => {
      for (let i = 0; i < count; i++) failures.push({ mode, endpoint });
    },
    setKeyStatus: (status) => {
      keyStatus = status;
    },
    requests,
    clearRequests: () => {
      requests.length = 0;
    },
    companies: () => data.companies(),
    company: (corpCode) => data.company(corpCode),
    companiesIn: (market) => data.codesIn(market).map((code) => data.company(code)!),
    listedCount: (board) => (board === undefined ? BOARDS : [board]).reduce((sum, each) => sum + data.codesIn(each).length, 0),
    filings: () => data.filings(),
    today,
    corpCodeZip,
    documentOf: (rceptNo) => documents.describe(rceptNo),
    setDocument: (rceptNo, xml, encoding) => documents.set(rceptNo, xml, encoding),
    documentZip: (rceptNo) => documents.zip(rceptNo),
  };

  return {
    baseUrl: `http://127.0.0.1:${port}/api`,
    apiKey,
    control,
    close: async () => {
      if (publisher !== null) clearInterval(publisher);
      for (const res of hanging) res.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function isEndpoint(name: string): name is Endpoint {
  return (ENDPOINTS as readonly string[]).includes(name);
}

function positiveInteger(text: string): number | null {
  if (!/^\d{1,9}$/.test(text)) return null;
  const value = Number(text);
  return value >= 1 ? value : null;
}

function sendStatus(res: ServerResponse, endpoint: Endpoint, answer: StatusAnswer): void {
  const base = MESSAGES[answer.status] ?? MESSAGES['900'];
  const message = answer.detail ? `${base} (${answer.detail})` : base;
  if (ZIP_ENDPOINTS.includes(endpoint)) {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<result>\n<status>${escapeXml(answer.status)}</status>\n<message>${escapeXml(message)}</message>\n</result>\n`;
    res.writeHead(200, { 'Content-Type': 'application/xml;charset=UTF-8' });
    res.end(xml);
    return;
  }
  sendJson(res, { status: answer.status, message });
}

/** The sandbox's own control route (outside the disclosure system's API). */
export const CONTROL_FILINGS_PATH = '/sandbox/filings';

function sendJson(res: ServerResponse, body: object): void {
  res.writeHead(200, { 'Content-Type': 'application/json;charset=UTF-8' });
  res.end(JSON.stringify(body));
}

function sendText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain;charset=UTF-8' });
  res.end(text);
}
