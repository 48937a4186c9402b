import { isUtf8 } from 'node:buffer';
import * as iconv from 'iconv-lite';
import { SaxesParser } from 'saxes';
import * as yauzl from 'yauzl';
import { extractDocumentText } from '../../src/analysis/document/document-text';
import type { DartFiling } from '../../src/upstream/dart/dart.types';
import { type DartSandbox, type MarkupDefect, type SandboxDocument, startDartSandbox } from './dart-sandbox';
import { addDays, isWeekday } from '../../src/common/korea-time';

// 2026-03-09 23:30 UTC is already Tuesday 2026-03-10 in Korea.
const NOW = new Date('2026-03-09T23:30:00Z');
const TODAY = '20260310';

interface ListBody {
  status: string;
  message: string;
  page_no?: number;
  page_count?: number;
  total_count?: number;
  total_page?: number;
  list?: DartFiling[];
}

async function get(
  sandbox: DartSandbox,
  endpoint: string,
  params: Record<string, string> = {},
  key: string | null = sandbox.apiKey,
): Promise<Response> {
  const url = new URL(`${sandbox.baseUrl}/${endpoint}`);
  if (key !== null) url.searchParams.set('crtfc_key', key);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return fetch(url);
}

async function list(sandbox: DartSandbox, params: Record<string, string> = {}, key?: string | null): Promise<ListBody> {
  return (await (await get(sandbox, 'list.json', params, key)).json()) as ListBody;
}

/** All rows of a query, read with the largest pages. */
async function listAll(sandbox: DartSandbox, params: Record<string, string>): Promise<DartFiling[]> {
  const rows: DartFiling[] = [];
  for (let page = 1; ; page++) {
    const body = await list(sandbox, { ...params, page_no: String(page), page_count: '100' });
    if (body.status === '013') return rows;
    rows.push(...body.list!);
    if (page >= body.total_page!) return rows;
  }
}

/** The files of a ZIP by name, in archive order. */
function unzipBytes(archive: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(archive, { lazyEntries: true }, (error, zip) => {
      if (error) return reject(error);
      const files = new Map<string, Buffer>();
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError) return reject(streamError);
          const parts: Buffer[] = [];
          stream.on('data', (part: Buffer) => parts.push(part));
          stream.on('end', () => {
            files.set(entry.fileName, Buffer.concat(parts));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(files));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

async function unzip(archive: Buffer): Promise<Map<string, string>> {
  const files = await unzipBytes(archive);
  return new Map([...files].map(([name, bytes]) => [name, bytes.toString('utf8')]));
}

/** Whether a strict XML parser accepts the text. */
function isWellFormed(xml: string): boolean {
  try {
    new SaxesParser().write(xml).close();
    return true;
  } catch {
    return false;
  }
}

describe('startDartSandbox', () => {
  let sandbox: DartSandbox;
  beforeAll(async () => {
    sandbox = await startDartSandbox({ seed: 42, companyCount: 20_000, now: () => NOW });
  });
  afterAll(() => sandbox.close());
  beforeEach(() => {
    sandbox.control.setKeyStatus(null);
  });

  describe('data', () => {
    it('has the companies of each market in realistic proportions', () => {
      const { control } = sandbox;
      expect(control.companies()).toHaveLength(20_000);
      // 850, 1,800, 130 and 1,100 of 115,000, scaled.
      expect(control.listedCount('Y')).toBe(148);
      expect(control.listedCount('K')).toBe(313);
      expect(control.listedCount('N')).toBe(23);
      expect(control.listedCount()).toBe(484);
      expect(control.companiesIn('delisted')).toHaveLength(191);
      expect(control.companiesIn('unlisted')).toHaveLength(20_000 - 484 - 191);
    });

    it('keeps every category present in a tiny sandbox', async () => {
      const tiny = await startDartSandbox({ companyCount: 300, now: () => NOW });
      try {
        for (const board of ['Y', 'K', 'N'] as const) expect(tiny.control.listedCount(board)).toBeGreaterThanOrEqual(5);
        expect(tiny.control.companiesIn('delisted').length).toBeGreaterThanOrEqual(5);
        expect(tiny.control.companies()).toHaveLength(300);
      } finally {
        await tiny.close();
      }
    });

    it('gives unique 8-digit corp codes and unique 6-character stock codes to listed and delisted companies only', () => {
      const companies = sandbox.control.companies();
      expect(new Set(companies.map((company) => company.corpCode)).size).toBe(companies.length);
      expect(companies.every((company) => /^\d{8}$/.test(company.corpCode))).toBe(true);
      const withStock = companies.filter((company) => company.stockCode !== null);
      expect(withStock.every((company) => company.market !== 'unlisted' && /^[0-9A-Z]{6}$/.test(company.stockCode!))).toBe(true);
      expect(withStock).toHaveLength(companies.filter((company) => company.market !== 'unlisted').length);
      expect(new Set(withStock.map((company) => company.stockCode)).size).toBe(withStock.length);
    });

    it('includes the edge-case names: %, _, &, case-only twins, stray spaces, Korean and Latin names', () => {
      const names = sandbox.control.companies().map((company) => company.corpName);
      expect(names).toEqual(expect.arrayContaining(['100%바이오', 'A_B테크', 'Alpha Tech', 'ALPHA TECH', 'KT&G', '한결건설 ']));
      const suffixes = ['전자', '바이오', '제약', '화학', '건설', '홀딩스', '에너지', '반도체', '엔터'];
      for (const suffix of suffixes) expect(names.some((name) => name.endsWith(suffix))).toBe(true);
      expect(names.filter((name) => /^[A-Z]+(&[A-Z]+)?$/.test(name)).length).toBeGreaterThan(100);
    });

    it('is the same for the same seed and different for another', async () => {
      const again = await startDartSandbox({ seed: 42, companyCount: 20_000, now: () => NOW });
      const other = await startDartSandbox({ seed: 43, companyCount: 20_000, now: () => NOW });
      try {
        expect(again.control.companies()).toEqual(sandbox.control.companies());
        expect(again.control.filings()).toEqual(sandbox.control.filings());
        expect(other.control.companies()).not.toEqual(sandbox.control.companies());
      } finally {
        await again.close();
        await other.close();
      }
    });

    it('files on weekdays in the past and today, with 14-digit receipt numbers that grow through each day', () => {
      const filings = sandbox.control.filings();
      const dates = new Set(filings.map((filing) => filing.rcept_dt));
      expect(dates.has(TODAY)).toBe(true);
      for (const date of dates) if (date !== TODAY) expect(isWeekday(date)).toBe(true);
      expect([...dates].every((date) => date >= addDays(TODAY, -120) && date <= TODAY)).toBe(true);
      // About 40 a business day over 120 calendar days.
      expect(filings.length).toBeGreaterThan(2_500);
      expect(filings.length).toBeLessThan(4_000);

      expect(new Set(filings.map((filing) => filing.rcept_no)).size).toBe(filings.length);
      expect(filings.filter((filing) => !/^\d{14}$/.test(filing.rcept_no) || !filing.rcept_no.startsWith(filing.rcept_dt))).toEqual([]);
      // filings() is newest first, so receipt numbers strictly decrease.
      expect(filings.every((filing, i) => i === 0 || filing.rcept_no < filings[i - 1].rcept_no)).toBe(true);
    });

    it('has listed, delisted and unlisted filers, corrections, remarks and person filers', () => {
      const filings = sandbox.control.filings();
      const unlisted = filings.filter((filing) => filing.stock_code === '');
      expect(unlisted.length).toBeGreaterThan(0);
      expect(unlisted.every((filing) => filing.corp_cls === 'E')).toBe(true);
      for (const cls of ['Y', 'K', 'N']) expect(filings.some((filing) => filing.corp_cls === cls)).toBe(true);
      expect(filings.some((filing) => filing.report_nm.startsWith('[기재정정]'))).toBe(true);
      expect(filings.some((filing) => /^(분기|반기|사업)보고서 \(\d{4}\.\d{2}\)$/.test(filing.report_nm))).toBe(true);
      expect(
        filings.some((filing) => filing.report_nm === '임원ㆍ주요주주특정증권등소유상황보고서' && filing.flr_nm !== filing.corp_name),
      ).toBe(true);
      for (const flag of ['유', '코', '정']) expect(filings.some((filing) => filing.rm.includes(flag))).toBe(true);
      expect(filings.some((filing) => filing.rm === '')).toBe(true);
    });
  });

  describe('list.json', () => {
    it('answers 010 for a missing or wrong key', async () => {
      expect((await list(sandbox, {}, null)).status).toBe('010');
      expect((await list(sandbox, {}, 'wrong')).status).toBe('010');
    });

    it("with only the key lists today's filings of all companies, newest first, 10 a page", async () => {
      const body = await list(sandbox);
      const today = sandbox.control.filings().filter((filing) => filing.rcept_dt === TODAY);
      expect(body).toMatchObject({ status: '000', message: '정상', page_no: 1, page_count: 10, total_count: today.length });
      expect(body.total_page).toBe(Math.ceil(today.length / 10));
      expect(body.list).toEqual(today.slice(0, 10));
      for (const row of body.list!) for (const value of Object.values(row)) expect(typeof value).toBe('string');
    });

    it('lists a range inclusively, newest first, across pages', async () => {
      const bgn = addDays(TODAY, -30);
      const end = addDays(TODAY, -1);
      const rows = await listAll(sandbox, { bgn_de: bgn, end_de: end });
      const expected = sandbox.control.filings().filter((filing) => filing.rcept_dt >= bgn && filing.rcept_dt <= end);
      expect(rows).toEqual(expected);
    });

    it('refuses a range over 3 calendar months without a company (status 100), allows it with one', async () => {
      expect((await list(sandbox, { bgn_de: '20251210', end_de: '20260310' })).status).toBe('000');
      expect((await list(sandbox, { bgn_de: '20251209', end_de: '20260310' })).status).toBe('100');
      // Nov 30 + 3 months is the last day of February.
      expect((await list(sandbox, { bgn_de: '20251130', end_de: '20260228' })).status).not.toBe('100');
      expect((await list(sandbox, { bgn_de: '20251130', end_de: '20260301' })).status).toBe('100');

      const filer = sandbox.control.filings().at(-1)!.corp_code;
      const body = await list(sandbox, { corp_code: filer, bgn_de: '20200101', end_de: TODAY });
      expect(body.status).toBe('000');
      expect(body.list!.every((row) => row.corp_code === filer)).toBe(true);
    });

    it('filters by corp_cls and hides corrected originals with last_reprt_at=Y', async () => {
      const range = { bgn_de: addDays(TODAY, -90), end_de: TODAY };
      const kosdaq = await listAll(sandbox, { ...range, corp_cls: 'K' });
      expect(kosdaq.length).toBeGreaterThan(0);
      expect(kosdaq.every((row) => row.corp_cls === 'K')).toBe(true);

      const all = await listAll(sandbox, range);
      const latest = await listAll(sandbox, { ...range, last_reprt_at: 'Y' });
      const corrected = all.filter((row) => row.rm.includes('정'));
      expect(corrected.length).toBeGreaterThan(0);
      expect(latest).toEqual(all.filter((row) => !row.rm.includes('정')));
    });

    it('validates paging and other fields with status 100', async () => {
      const invalid: Array<Record<string, string>> = [
        { page_count: '0' },
        { page_count: '101' },
        { page_no: '0' },
        { page_no: 'x' },
        { corp_cls: 'X' },
        { bgn_de: '20260231' },
        { last_reprt_at: 'maybe' },
      ];
      for (const params of invalid) {
        expect((await list(sandbox, params)).status).toBe('100');
      }
      expect((await list(sandbox, { page_count: '100' })).status).toBe('000');
    });

    it('answers 013 when nothing matches', async () => {
      const saturday = '20260307';
      expect(await list(sandbox, { bgn_de: saturday, end_de: saturday })).toEqual({ status: '013', message: '조회된 데이타가 없습니다.' });
    });
  });

  describe('corpCode.xml', () => {
    it('serves a ZIP holding CORPCODE.xml in the upstream layout, escaped, cached until a company changes', async () => {
      const response = await get(sandbox, 'corpCode.xml');
      expect(response.headers.get('content-type')).toBe('application/x-msdownload');
      const archive = Buffer.from(await response.arrayBuffer());
      expect(archive.subarray(0, 2).toString('latin1')).toBe('PK');

      const xml = (await unzip(archive)).get('CORPCODE.xml')!;
      expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<result>')).toBe(true);
      expect(xml.match(/<list>/g)).toHaveLength(20_000);
      expect(xml).toContain('<corp_name>KT&amp;G</corp_name>');
      expect(xml).toContain('<stock_code> </stock_code>');
      const listed = sandbox.control.companiesIn('Y')[0];
      expect(xml).toContain(`<corp_code>${listed.corpCode}</corp_code>`);

      expect(await sandbox.control.corpCodeZip()).toBe(await sandbox.control.corpCodeZip());
      const before = await sandbox.control.corpCodeZip();
      sandbox.control.renameCompany(listed.corpCode, 'R&D신소재');
      const after = await sandbox.control.corpCodeZip();
      expect(after).not.toBe(before);
      expect((await unzip(after)).get('CORPCODE.xml')).toContain('<corp_name>R&amp;D신소재</corp_name>');
    });

    it('answers errors as an XML status document with HTTP 200', async () => {
      const response = await get(sandbox, 'corpCode.xml', {}, 'wrong');
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).toContain('<status>010</status>');
      expect(text).toContain('<message>등록되지 않은 키입니다.</message>');
    });
  });

  describe('company.json', () => {
    it('describes listed, delisted and unlisted companies', async () => {
      const listed = sandbox.control.companiesIn('N')[0];
      const delisted = sandbox.control.companiesIn('delisted')[0];
      const unlisted = sandbox.control.companiesIn('unlisted')[0];
      const fetchCompany = async (corpCode: string): Promise<Record<string, string>> =>
        (await (await get(sandbox, 'company.json', { corp_code: corpCode })).json()) as Record<string, string>;

      const body = await fetchCompany(listed.corpCode);
      expect(body).toMatchObject({
        status: '000',
        corp_code: listed.corpCode,
        corp_name: listed.corpName,
        corp_cls: 'N',
        stock_code: listed.stockCode,
      });
      expect(body.jurir_no).toMatch(/^\d{13}$/);
      expect(body.bizr_no).toMatch(/^\d{10}$/);
      expect(body.est_dt).toMatch(/^\d{8}$/);
      expect(await fetchCompany(listed.corpCode)).toEqual(body);

      expect(await fetchCompany(delisted.corpCode)).toMatchObject({ corp_cls: 'E', stock_code: delisted.stockCode });
      expect(await fetchCompany(unlisted.corpCode)).toMatchObject({ corp_cls: 'E', stock_code: '' });
      expect(await fetchCompany('99999999')).toEqual({ status: '013', message: '조회된 데이타가 없습니다.' });
      expect((await fetchCompany('123')).status).toBe('100');
    });
  });

  describe('control', () => {
    it('publishes a filing for today by a listed company, newest of the day', async () => {
      const filing = sandbox.control.publishFiling();
      expect(filing.rcept_dt).toBe(TODAY);
      expect(['Y', 'K', 'N']).toContain(filing.corp_cls);
      expect(sandbox.control.filings()[0]).toEqual(filing);
      expect((await list(sandbox, { page_count: '1' })).list).toEqual([filing]);

      const unlisted = sandbox.control.companiesIn('unlisted')[0];
      const own = sandbox.control.publishFiling({ corp_code: unlisted.corpCode, report_nm: '감사보고서 (2025.12)' });
      expect(own).toMatchObject({
        corp_code: unlisted.corpCode,
        corp_name: unlisted.corpName,
        stock_code: '',
        corp_cls: 'E',
        report_nm: '감사보고서 (2025.12)',
      });
      expect(own.rcept_no > filing.rcept_no).toBe(true);
      expect(() => sandbox.control.publishFiling({ corp_code: '99999999' })).toThrow();
    });

    it('adds, renames, lists and delists companies', async () => {
      const { control } = sandbox;
      const added = control.addCompany({ corpName: '새싹로보틱스' });
      expect(added).toMatchObject({ market: 'unlisted', stockCode: null, modifyDate: TODAY });
      expect(control.company(added.corpCode)).toEqual(added);

      const listed = control.moveBoard(added.corpCode, 'K');
      expect(listed.stockCode).toMatch(/^[0-9A-Z]{6}$/);
      const fetchCls = async (): Promise<unknown> =>
        ((await (await get(sandbox, 'company.json', { corp_code: added.corpCode })).json()) as { corp_cls: string }).corp_cls;
      expect(await fetchCls()).toBe('K');

      control.renameCompany(added.corpCode, '새싹로보틱스홀딩스');
      control.delist(added.corpCode);
      expect(control.company(added.corpCode)).toMatchObject({
        corpName: '새싹로보틱스홀딩스',
        market: 'delisted',
        stockCode: listed.stockCode,
      });
      expect(await fetchCls()).toBe('E');
      expect(() => control.delist(control.companiesIn('unlisted')[0].corpCode)).toThrow();
    });

    it('fails the next requests as asked, then answers normally', async () => {
      sandbox.control.failNext(1, '020');
      sandbox.control.failNext(1, 'http500');
      sandbox.control.failNext(1, '011');
      expect((await list(sandbox)).status).toBe('020');
      expect((await get(sandbox, 'list.json')).status).toBe(500);
      expect(await (await get(sandbox, 'corpCode.xml')).text()).toContain('<status>011</status>');
      expect((await list(sandbox)).status).toBe('000');
    });

    it('holds a hanging request open until the client gives up', async () => {
      sandbox.control.failNext(1, 'hang');
      const started = Date.now();
      await expect(
        fetch(`${sandbox.baseUrl}/list.json?crtfc_key=${sandbox.apiKey}`, { signal: AbortSignal.timeout(150) }),
      ).rejects.toThrow();
      expect(Date.now() - started).toBeGreaterThanOrEqual(140);
      expect((await list(sandbox)).status).toBe('000');
    });

    it('answers a key status to every call until it is reset', async () => {
      sandbox.control.setKeyStatus('011');
      expect((await list(sandbox)).status).toBe('011');
      expect((await (await get(sandbox, 'company.json', { corp_code: '00100001' })).json()) as object).toMatchObject({ status: '011' });
      sandbox.control.setKeyStatus(null);
      expect((await list(sandbox)).status).toBe('000');
    });

    it('publishes a filing over HTTP at POST /sandbox/filings, for a named company or any listed one', async () => {
      const control = `${new URL(sandbox.baseUrl).origin}/sandbox/filings`;
      const company = sandbox.control.companiesIn('K')[0];
      const named = await fetch(control, { method: 'POST', body: JSON.stringify({ corp_code: company.corpCode }) });
      expect(named.status).toBe(201);
      const filing = (await named.json()) as DartFiling;
      expect(filing).toMatchObject({ corp_code: company.corpCode, corp_name: company.corpName, rcept_dt: TODAY });
      expect(sandbox.control.filings()[0]).toEqual(filing);

      const any = await fetch(control, { method: 'POST' });
      expect(any.status).toBe(201);
      expect(['Y', 'K', 'N']).toContain(((await any.json()) as DartFiling).corp_cls);

      const refusals = await Promise.all([
        fetch(control, { method: 'POST', body: '{"corp_code":"99999999"}' }),
        fetch(control, { method: 'POST', body: '{"corp_code":"12"}' }),
        fetch(control, { method: 'POST', body: 'not json' }),
        fetch(control),
      ]);
      expect(refusals.map((response) => response.status)).toEqual([404, 400, 400, 405]);
      expect(sandbox.control.filings()[1]).toEqual(filing);
    });

    it('logs every request with its path and query', async () => {
      sandbox.control.clearRequests();
      await list(sandbox, { page_no: '2' });
      expect(sandbox.control.requests).toEqual([
        { path: '/api/list.json', query: { crtfc_key: sandbox.apiKey, page_no: '2' }, at: expect.any(Date) },
      ]);
    });
  });
});

describe('startDartSandbox document.xml', () => {
  let sandbox: DartSandbox;
  /** Every filing's document, generated once for all tests. */
  let documents: Array<{ filing: DartFiling; document: SandboxDocument }>;
  const ofKind = (kind: string): typeof documents => documents.filter(({ document }) => document.kind === kind);

  beforeAll(async () => {
    sandbox = await startDartSandbox({ seed: 42, companyCount: 300, filingsPerBusinessDay: 10, now: () => NOW });
    documents = sandbox.control.filings().map((filing) => ({ filing, document: sandbox.control.documentOf(filing.rcept_no)! }));
  });
  afterAll(() => sandbox.close());
  beforeEach(() => sandbox.control.setKeyStatus(null));

  const fetchDocument = async (rceptNo: string, key: string = sandbox.apiKey): Promise<Response> =>
    get(sandbox, 'document.xml', { rcept_no: rceptNo }, key);

  it('has a document of every kind, about 3 % answering 014, and attachments', () => {
    expect(documents.length).toBeGreaterThan(600);
    for (const kind of ['short', 'medium', 'long', 'malformed', 'euc-kr', 'missing']) expect(ofKind(kind).length).toBeGreaterThan(5);
    const missingShare = ofKind('missing').length / documents.length;
    expect(missingShare).toBeGreaterThan(0.01);
    expect(missingShare).toBeLessThan(0.06);
    expect(ofKind('missing').every(({ document }) => document.xml === undefined)).toBe(true);

    const withAttachments = documents.filter(({ document }) => document.attachments.length > 0);
    expect(withAttachments.length).toBeGreaterThan(5);
    for (const { filing, document } of withAttachments) {
      for (const name of document.attachments) expect(name).toMatch(new RegExp(`^${filing.rcept_no}_\\d{5}\\.xml$`));
    }
    // Long documents are the forms that are long in reality.
    expect(
      documents
        .filter(({ document }) => document.size === 'long')
        .every(({ filing }) => /보고서 \(|감사보고서 \(|증권신고서|투자설명서/.test(filing.report_nm)),
    ).toBe(true);
  });

  it('writes short documents under 1,000 characters of text and long ones of tens of thousands, some over 100,000', async () => {
    const textOf = async (rceptNo: string): Promise<string> =>
      (await extractDocumentText((await sandbox.control.documentZip(rceptNo))!, rceptNo)).text;
    const short = documents.filter(({ document }) => document.size === 'short').slice(0, 30);
    for (const { filing } of short) {
      const text = await textOf(filing.rcept_no);
      expect(text.length).toBeGreaterThan(100);
      expect(text.length).toBeLessThan(1_000);
    }
    const long = documents.filter(({ document }) => document.size === 'long').slice(0, 15);
    for (const { filing } of long) expect((await textOf(filing.rcept_no)).length).toBeGreaterThan(10_000);

    const longest = documents.reduce((best, each) => ((each.document.xml?.length ?? 0) > (best.document.xml?.length ?? 0) ? each : best));
    expect((await textOf(longest.filing.rcept_no)).length).toBeGreaterThan(100_000);
    // Written in Korean, with figures and their units.
    expect(longest.document.xml).toMatch(/[가-힣]{2,}/);
    for (const unit of [/\d원/, /\(단위 : (원|백만원|천원)\)/, /\d%/, /억원/])
      expect(ofKind('long').some(({ document }) => unit.test(document.xml!))).toBe(true);
  });

  it('encodes EUC-KR documents in EUC-KR with their declaration, and the others in UTF-8', async () => {
    for (const { filing, document } of [...ofKind('euc-kr').slice(0, 10), ...ofKind('long').slice(0, 3), ...ofKind('short').slice(0, 3)]) {
      const files = await unzipBytes((await sandbox.control.documentZip(filing.rcept_no))!);
      const bytes = files.get(`${filing.rcept_no}.xml`)!;
      if (document.encoding === 'euc-kr') {
        expect(bytes.subarray(0, 40).toString('latin1')).toBe('<?xml version="1.0" encoding="EUC-KR"?>\n');
        expect(isUtf8(bytes)).toBe(false);
        expect(iconv.decode(bytes, 'euc-kr')).toBe(document.xml);
      } else {
        expect(isUtf8(bytes)).toBe(true);
        expect(bytes.toString('utf8')).toBe(document.xml);
      }
    }
  });

  it('breaks malformed documents so that a strict XML parser rejects them, and keeps the others well-formed', () => {
    const malformed = documents.filter(({ document }) => document.defects.length > 0);
    expect(malformed.length).toBeGreaterThan(ofKind('malformed').length);
    for (const { document } of malformed.slice(0, 40)) {
      expect(document.defects.length).toBeGreaterThanOrEqual(2);
      expect(isWellFormed(document.xml!)).toBe(false);
    }
    const defects = new Set<MarkupDefect>(malformed.flatMap(({ document }) => document.defects));
    expect([...defects].sort()).toEqual(['bare-br', 'html-entity', 'mismatched-case', 'stray-ampersand', 'unclosed-p']);

    const wellFormed = documents.filter(({ document }) => document.xml !== undefined && document.defects.length === 0);
    for (const { document } of [
      ...wellFormed.slice(0, 40),
      ...wellFormed.filter(({ document: each }) => each.size === 'long').slice(0, 5),
    ]) {
      expect(isWellFormed(document.xml!)).toBe(true);
    }
  });

  it('serves over HTTP the ZIP of the main document and its attachments', async () => {
    const { filing, document } = documents.find(({ document: each }) => each.attachments.length > 0 && each.kind !== 'euc-kr')!;
    const response = await fetchDocument(filing.rcept_no);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-msdownload');
    const archive = Buffer.from(await response.arrayBuffer());
    expect(archive.subarray(0, 2).toString('latin1')).toBe('PK');
    expect(archive.equals((await sandbox.control.documentZip(filing.rcept_no))!)).toBe(true);

    const files = await unzip(archive);
    expect([...files.keys()].sort()).toEqual([`${filing.rcept_no}.xml`, ...document.attachments].sort());
    expect(files.get(`${filing.rcept_no}.xml`)).toBe(document.xml);
    for (const name of document.attachments) expect(files.get(name)).toMatch(/<DOCUMENT[\s\S]*<BODY>[\s\S]*<\/DOCUMENT>/);
  });

  it('answers 014 for a missing document or an unknown filing, 100 for a malformed receipt number, 010 for a wrong key, as XML', async () => {
    const statusOf = async (response: Response): Promise<string> => {
      expect(response.status).toBe(200);
      return /<status>(\d{3})<\/status>/.exec(await response.text())![1];
    };
    expect(await statusOf(await fetchDocument(ofKind('missing')[0].filing.rcept_no))).toBe('014');
    expect(await statusOf(await fetchDocument('19990101000001'))).toBe('014');
    expect(await statusOf(await fetchDocument('2026031'))).toBe('100');
    expect(await statusOf(await fetchDocument(documents[0].filing.rcept_no, 'wrong'))).toBe('010');
    const response = await fetchDocument(ofKind('missing')[0].filing.rcept_no);
    expect(await response.text()).toContain('<message>파일이 존재하지 않습니다.</message>');
  });

  it('generates the same documents for the same seed, once per filing, and one for a filing published later', async () => {
    const again = await startDartSandbox({ seed: 42, companyCount: 300, filingsPerBusinessDay: 10, now: () => NOW });
    try {
      for (const { filing, document } of documents.slice(0, 50)) expect(again.control.documentOf(filing.rcept_no)).toEqual(document);
    } finally {
      await again.close();
    }
    const { filing } = documents[1];
    expect(sandbox.control.documentOf(filing.rcept_no)).toBe(sandbox.control.documentOf(filing.rcept_no));

    const published = sandbox.control.publishFiling({ report_nm: '현금ㆍ현물배당결정' });
    const document = sandbox.control.documentOf(published.rcept_no)!;
    if (document.kind !== 'missing') expect(document.xml).toContain('1주당 배당금');
    expect(sandbox.control.documentOf('19990101000001')).toBeUndefined();
  });

  it('serves exactly what a test sets: its markup in UTF-8 or EUC-KR, or 014', async () => {
    const [first, second, third] = documents.map(({ filing }) => filing.rcept_no);
    const xml = '<?xml version="1.0" encoding="EUC-KR"?><DOCUMENT><BODY><P>시험용 문서 & 깨진 <BR>마크업</BODY>';

    expect(sandbox.control.setDocument(first, xml, 'euc-kr')).toMatchObject({ kind: 'custom', encoding: 'euc-kr', xml });
    const eucKr = await unzipBytes(Buffer.from(await (await fetchDocument(first)).arrayBuffer()));
    expect([...eucKr.keys()]).toEqual([`${first}.xml`]);
    expect(eucKr.get(`${first}.xml`)!.equals(iconv.encode(xml, 'euc-kr'))).toBe(true);

    sandbox.control.setDocument(second, '<DOCUMENT><BODY><P>유니코드</P></BODY></DOCUMENT>');
    expect((await unzip(Buffer.from(await (await fetchDocument(second)).arrayBuffer()))).get(`${second}.xml`)).toBe(
      '<DOCUMENT><BODY><P>유니코드</P></BODY></DOCUMENT>',
    );

    expect(sandbox.control.setDocument(third, null)).toMatchObject({ kind: 'missing' });
    expect(await (await fetchDocument(third)).text()).toContain('<status>014</status>');
    expect(await sandbox.control.documentZip(third)).toBeNull();
  });
});

describe('startDartSandbox timing options', () => {
  it('publishes new filings on a timer while it runs', async () => {
    const sandbox = await startDartSandbox({ companyCount: 300, filingsPerBusinessDay: 0, newFilingEveryMs: 20, now: () => NOW });
    try {
      expect(sandbox.control.filings()).toHaveLength(0);
      // Polls for the outcome (local/ does not reach into test/support for `eventually`).
      while (sandbox.control.filings().length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
      const filings = sandbox.control.filings();
      expect(filings.every((filing) => filing.rcept_dt === TODAY)).toBe(true);
    } finally {
      await sandbox.close();
    }
  });

  it('delays answers by latencyMs', async () => {
    const sandbox = await startDartSandbox({ companyCount: 300, latencyMs: 120, now: () => NOW });
    try {
      const started = Date.now();
      expect((await list(sandbox)).status).toBe('000');
      expect(Date.now() - started).toBeGreaterThanOrEqual(110);
    } finally {
      await sandbox.close();
    }
  });

  it('refuses fewer companies than it needs for every category', async () => {
    await expect(startDartSandbox({ companyCount: 10 })).rejects.toThrow(RangeError);
  });
});
