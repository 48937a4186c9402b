import type { CorpClass, DartCompany, DartFiling } from '../../src/upstream/dart/dart.types';
import { addDays, isWeekday } from '../../src/common/korea-time';
import { Prng, hashString } from './prng';
import { LISTED_REPORTS, type ReportKind, UNLISTED_REPORTS } from './sandbox-reports';
import { INDUSTRY_CODES, INSTITUTIONS, address, companyName, personName } from './sandbox-vocabulary';

/** Where a company stands: a board of the exchange, delisted (stock code kept), or never listed. */
export type Market = 'Y' | 'K' | 'N' | 'delisted' | 'unlisted';
export type Board = 'Y' | 'K' | 'N';
const BOARDS: readonly Board[] = ['Y', 'K', 'N'];
const MARKETS: readonly Market[] = ['Y', 'K', 'N', 'delisted', 'unlisted'];

export interface SandboxCompany {
  readonly corpCode: string;
  /** As the upstream stores it: a few names carry stray spaces, which clients trim. */
  readonly corpName: string;
  readonly corpEngName: string;
  readonly stockCode: string | null;
  readonly market: Market;
  readonly modifyDate: string;
}

/** A filing as stored: the list row plus whether a later correction replaced it. */
interface StoredFiling extends DartFiling {
  superseded: boolean;
}

export interface FilingFilter {
  bgnDe: string;
  endDe: string;
  corpCode?: string;
  corpCls?: CorpClass;
  /** `last_reprt_at=Y`: hide reports that a later correction replaced. */
  latestOnly?: boolean;
}

export interface SandboxDataOptions {
  seed: number;
  companyCount: number;
  pastDays: number;
  filingsPerBusinessDay: number;
  /** Today's date in KST (YYYYMMDD), asked each time: the clock may move. */
  today: () => string;
}

/** Companies per market in the real file of about 115,000 entries. */
const REAL_TOTAL = 115_000;
const REAL_COUNTS: Record<Exclude<Market, 'unlisted'>, number> = { Y: 850, K: 1_800, N: 130, delisted: 1_100 };
/** Every category is represented even in tiny sandboxes. */
const MIN_PER_CATEGORY = 5;
export const MIN_COMPANY_COUNT = 50;

/** Fixed entries that exercise escaping, LIKE patterns, case and trimming in whatever consumes the data. */
const EDGE_CASES: ReadonlyArray<{ name: string; engName: string; market: Market }> = [
  { name: '100%바이오', engName: '100% Bio Co., Ltd.', market: 'K' },
  { name: 'A_B테크', engName: 'A_B Tech Co., Ltd.', market: 'K' },
  { name: 'Alpha Tech', engName: 'Alpha Tech Inc.', market: 'Y' },
  { name: 'ALPHA TECH', engName: 'ALPHA TECH Co., Ltd.', market: 'unlisted' },
  { name: 'KT&G', engName: 'KT&G Corporation', market: 'Y' },
  { name: '한결건설 ', engName: ' Hangyeol Construction Co., Ltd.', market: 'unlisted' },
];

/** Generation slots from this value on stand for an edge case; markets use 0 to 4. */
const EDGE_SLOT = 100;

/** Share of filings by listed, unlisted and delisted filers. */
const FILER_MIX = { listed: 0.7, unlisted: 0.27 };
/** Chance that a correctable filing is a correction of the company's previous one. */
const CORRECTION_RATE = 0.07;
/** Letters in the new alphanumeric stock codes. */
const STOCK_CODE_LETTERS = [...'ABCDEFGHJKLM'];
const BOARD_FLAG: Record<Board, string> = { Y: '유', K: '코', N: '넥' };

export function corpClsOf(market: Market): CorpClass {
  return market === 'delisted' || market === 'unlisted' ? 'E' : market;
}

/**
 * The sandbox's world: companies and filings generated from a seed, and the
 * changes tests make to it. Filings are kept sorted by `rcept_no`, which starts
 * with the date, so a date range is two binary searches.
 */
export class SandboxData {
  private readonly rng: Prng;
  private readonly companyList: SandboxCompany[] = [];
  private readonly indexByCode = new Map<string, number>();
  private readonly codesByMarket: Record<Market, string[]> = { Y: [], K: [], N: [], delisted: [], unlisted: [] };
  private readonly stockCodes = new Set<string>();
  private lastCorpCode = 100_000;

  private readonly filingList: StoredFiling[] = [];
  private readonly lastSeqByDate = new Map<string, number>();
  /** The latest correctable filing per company: what a [기재정정] filing corrects. */
  private readonly correctableByCompany = new Map<string, StoredFiling>();

  /** Bumped whenever corpCode.xml would read differently. */
  version = 0;

  constructor(private readonly options: SandboxDataOptions) {
    if (!Number.isInteger(options.companyCount) || options.companyCount < MIN_COMPANY_COUNT) {
      throw new RangeError(`companyCount must be an integer of at least ${MIN_COMPANY_COUNT} (got ${options.companyCount})`);
    }
    this.rng = new Prng(options.seed);
    this.generateCompanies();
    this.generateFilings();
  }

  companies(): readonly SandboxCompany[] {
    return this.companyList;
  }

  company(corpCode: string): SandboxCompany | undefined {
    const index = this.indexByCode.get(corpCode);
    return index === undefined ? undefined : this.companyList[index];
  }

  /** Corp codes of the companies in `market`. */
  codesIn(market: Market): readonly string[] {
    return this.codesByMarket[market];
  }

  /** Every filing as a list row, newest first. */
  filings(): DartFiling[] {
    return this.filingList.map(toRow).reverse();
  }

  /** One filing as a list row; undefined when no filing has this receipt number. */
  filing(rceptNo: string): DartFiling | undefined {
    const filing = this.findFiling(rceptNo);
    return filing === undefined ? undefined : toRow(filing);
  }

  /** The rows `list.json` answers for `filter`, newest first. */
  query(filter: FilingFilter): DartFiling[] {
    const from = lowerBound(this.filingList, `${filter.bgnDe}000000`);
    const to = lowerBound(this.filingList, `${filter.endDe}999999~`);
    const rows: DartFiling[] = [];
    for (let i = to - 1; i >= from; i--) {
      const filing = this.filingList[i];
      if (filter.corpCode !== undefined && filing.corp_code !== filter.corpCode) continue;
      if (filter.corpCls !== undefined && filing.corp_cls !== filter.corpCls) continue;
      if (filter.latestOnly && filing.superseded) continue;
      rows.push(toRow(filing));
    }
    return rows;
  }

  /** The `company.json` record; the details no list carries are derived from the corp code, so they never change. */
  details(company: SandboxCompany): DartCompany {
    const rng = new Prng(this.options.seed ^ hashString(company.corpCode));
    const domain = company.corpEngName
      .trim()
      .split(/[\s,.&]+/)[0]
      ?.toLowerCase();
    const area = rng.pick(['02', '031', '032', '042', '051', '043', '055']);
    return {
      corp_code: company.corpCode,
      corp_name: company.corpName,
      corp_name_eng: company.corpEngName,
      stock_name: company.stockCode === null ? '' : company.corpName.trim(),
      stock_code: company.stockCode ?? '',
      ceo_nm: rng.chance(0.15) ? `${personName(rng)}, ${personName(rng)}` : personName(rng),
      corp_cls: corpClsOf(company.market),
      jurir_no: `1101${rng.digits(9)}`,
      bizr_no: rng.digits(10),
      adres: address(rng),
      hm_url: domain ? `www.${domain}.co.kr` : '',
      ir_url: '',
      phn_no: `${area}-${rng.int(200, 999)}-${rng.digits(4)}`,
      fax_no: `${area}-${rng.int(200, 999)}-${rng.digits(4)}`,
      induty_code: rng.pick(INDUSTRY_CODES),
      est_dt: `${rng.int(1950, 2022)}${String(rng.int(1, 12)).padStart(2, '0')}${String(rng.int(1, 28)).padStart(2, '0')}`,
      acc_mt: rng.chance(0.95) ? '12' : rng.pick(['03', '06']),
    };
  }

  // Changes made through the sandbox's control.

  addCompany(partial: Partial<SandboxCompany> = {}): SandboxCompany {
    const market = partial.market ?? 'unlisted';
    if (!MARKETS.includes(market)) throw new RangeError(`unknown market ${market}`);
    if (partial.corpCode !== undefined && (!/^\d{8}$/.test(partial.corpCode) || this.indexByCode.has(partial.corpCode))) {
      throw new RangeError(`corp code ${partial.corpCode} is malformed or taken`);
    }
    if (partial.stockCode && this.stockCodes.has(partial.stockCode)) throw new RangeError(`stock code ${partial.stockCode} is taken`);
    const generated = companyName(this.rng, market === 'unlisted');
    const stockCode = partial.stockCode || (market === 'unlisted' ? null : this.newStockCode());
    if (stockCode !== null) this.stockCodes.add(stockCode);
    const company: SandboxCompany = {
      corpCode: partial.corpCode ?? this.newCorpCode(),
      corpName: partial.corpName ?? generated.name,
      corpEngName: partial.corpEngName ?? generated.engName,
      stockCode,
      market,
      modifyDate: partial.modifyDate ?? this.options.today(),
    };
    this.indexByCode.set(company.corpCode, this.companyList.length);
    this.companyList.push(company);
    this.codesByMarket[market].push(company.corpCode);
    this.version++;
    return company;
  }

  renameCompany(corpCode: string, name: string): SandboxCompany {
    return this.update(corpCode, { corpName: name });
  }

  /** Lists the company on `board` (a company without a stock code gets one). */
  moveBoard(corpCode: string, board: Board): SandboxCompany {
    if (!BOARDS.includes(board)) throw new RangeError(`unknown board ${board}`);
    const company = this.require(corpCode);
    const stockCode = company.stockCode ?? this.newStockCode();
    this.stockCodes.add(stockCode);
    return this.update(corpCode, { market: board, stockCode });
  }

  /** Delisting keeps the stock code, as the upstream file does. */
  delist(corpCode: string): SandboxCompany {
    const company = this.require(corpCode);
    if (company.stockCode === null) throw new RangeError(`${corpCode} was never listed`);
    return this.update(corpCode, { market: 'delisted' });
  }

  /** Adds a filing, by default today's by a listed company. */
  publishFiling(partial: Partial<DartFiling> = {}): DartFiling {
    const company = partial.corp_code !== undefined ? this.require(partial.corp_code) : this.company(this.pickFiler('listed'));
    if (company === undefined) throw new Error('the sandbox has no listed company');
    const date = partial.rcept_dt ?? partial.rcept_no?.slice(0, 8) ?? this.options.today();
    if (partial.rcept_no !== undefined && this.findFiling(partial.rcept_no) !== undefined) {
      throw new RangeError(`rcept_no ${partial.rcept_no} is taken`);
    }
    // A caller naming the report decides what it is; no hidden correction of an older filing then.
    const filing = this.makeFiling(date, company, partial.rcept_no, partial.report_nm === undefined);
    Object.assign(filing, partial);
    this.insertFiling(filing);
    return toRow(filing);
  }

  // Generation.

  private generateCompanies(): void {
    const count = this.options.companyCount;
    // One byte per company keeps the shuffle cheap at 115,000 entries: an index into
    // MARKETS, or EDGE_SLOT + i for the i-th edge case.
    const slots = new Uint8Array(count).fill(MARKETS.indexOf('unlisted'));
    EDGE_CASES.forEach((_, i) => (slots[i] = EDGE_SLOT + i));
    let filled = EDGE_CASES.length;
    for (const [market, real] of Object.entries(REAL_COUNTS) as Array<[Market, number]>) {
      const wanted = Math.max(MIN_PER_CATEGORY, Math.round((count * real) / REAL_TOTAL));
      const fixed = EDGE_CASES.filter((edge) => edge.market === market).length;
      slots.fill(MARKETS.indexOf(market), filled, filled + wanted - fixed);
      filled += wanted - fixed;
    }
    // Markets are spread over the corp codes, as in the real file.
    for (let i = count - 1; i > 0; i--) {
      const j = this.rng.int(0, i);
      [slots[i], slots[j]] = [slots[j], slots[i]];
    }

    // Dates of the last five years, computed once: date arithmetic per company would dominate.
    const today = this.options.today();
    const recentDates = Array.from({ length: 1_800 }, (_, back) => addDays(today, -1 - back));
    for (const slot of slots) {
      const edge = slot >= EDGE_SLOT ? EDGE_CASES[slot - EDGE_SLOT] : undefined;
      this.addCompany({
        market: edge?.market ?? MARKETS[slot],
        corpName: edge?.name,
        corpEngName: edge?.engName,
        modifyDate: this.rng.pick(recentDates),
      });
    }
  }

  private generateFilings(): void {
    const today = this.options.today();
    const perDay = this.options.filingsPerBusinessDay;
    for (let back = this.options.pastDays; back >= 1; back--) {
      const date = addDays(today, -back);
      if (!isWeekday(date)) continue;
      const count = Math.round(perDay * (0.6 + 0.8 * this.rng.next()));
      for (let i = 0; i < count; i++) this.insertFiling(this.makeFiling(date, this.randomFiler()));
    }
    // Today is half way through its business day whenever the sandbox starts.
    const todayCount = Math.max(perDay > 0 ? 1 : 0, Math.round(perDay / 2));
    for (let i = 0; i < todayCount; i++) this.insertFiling(this.makeFiling(today, this.randomFiler()));
  }

  private randomFiler(): SandboxCompany {
    const roll = this.rng.next();
    const kind = roll < FILER_MIX.listed ? 'listed' : roll < FILER_MIX.listed + FILER_MIX.unlisted ? 'unlisted' : 'delisted';
    return this.company(this.pickFiler(kind))!;
  }

  private pickFiler(kind: 'listed' | 'unlisted' | 'delisted'): string {
    if (kind !== 'listed') return this.rng.pick(this.codesByMarket[kind]);
    const listed = BOARDS.reduce((sum, board) => sum + this.codesByMarket[board].length, 0);
    let index = this.rng.int(0, listed - 1);
    for (const board of BOARDS) {
      const codes = this.codesByMarket[board];
      if (index < codes.length) return codes[index];
      index -= codes.length;
    }
    throw new Error('the sandbox has no listed company');
  }

  private makeFiling(date: string, company: SandboxCompany, rceptNo?: string, mayCorrect = true): StoredFiling {
    const listed = company.market !== 'delisted' && company.market !== 'unlisted';
    const kind: ReportKind = this.rng.weighted(listed ? LISTED_REPORTS : UNLISTED_REPORTS);
    let reportName = kind.title(date);
    const rm = kind.rm ?? (kind.exchange && listed ? BOARD_FLAG[company.market as Board] : '');

    const previous = kind.correctable ? this.correctableByCompany.get(company.corpCode) : undefined;
    if (mayCorrect && previous !== undefined && previous.rcept_dt <= date && this.rng.chance(CORRECTION_RATE)) {
      reportName = `[기재정정]${previous.report_nm.replace(/^\[[^\]]*정정\]/, '')}`;
      // 정 on a row means: a correction of this filing exists, read that one.
      if (!previous.rm.includes('정')) previous.rm += '정';
      previous.superseded = true;
    }

    const filing: StoredFiling = {
      corp_code: company.corpCode,
      corp_name: company.corpName,
      stock_code: company.stockCode ?? '',
      corp_cls: corpClsOf(company.market),
      report_nm: reportName,
      rcept_no: rceptNo ?? this.nextRceptNo(date),
      flr_nm: this.filerName(kind, company),
      rcept_dt: date,
      rm,
      superseded: false,
    };
    if (kind.correctable) this.correctableByCompany.set(company.corpCode, filing);
    return filing;
  }

  private filerName(kind: ReportKind, company: SandboxCompany): string {
    if (kind.filer === 'insider') return personName(this.rng);
    if (kind.filer === 'holder') return this.rng.chance(0.5) ? personName(this.rng) : this.rng.pick(INSTITUTIONS);
    return company.corpName;
  }

  /** Receipt numbers are the date and a sequence that grows through the day. */
  private nextRceptNo(date: string): string {
    const last = this.lastSeqByDate.get(date) ?? this.rng.int(0, 30);
    const seq = last + this.rng.int(1, 12);
    if (seq > 999_999) throw new RangeError(`no receipt numbers left on ${date}`);
    this.lastSeqByDate.set(date, seq);
    return `${date}${String(seq).padStart(6, '0')}`;
  }

  private insertFiling(filing: StoredFiling): void {
    const last = this.filingList[this.filingList.length - 1];
    if (last === undefined || last.rcept_no < filing.rcept_no) this.filingList.push(filing);
    else this.filingList.splice(lowerBound(this.filingList, filing.rcept_no), 0, filing);
    const seq = Number(filing.rcept_no.slice(8));
    const date = filing.rcept_no.slice(0, 8);
    if (seq > (this.lastSeqByDate.get(date) ?? -1)) this.lastSeqByDate.set(date, seq);
  }

  private findFiling(rceptNo: string): StoredFiling | undefined {
    const filing = this.filingList[lowerBound(this.filingList, rceptNo)];
    return filing?.rcept_no === rceptNo ? filing : undefined;
  }

  private newCorpCode(): string {
    // Gaps between codes, as in the real file.
    this.lastCorpCode += this.rng.int(1, 8);
    let code = String(this.lastCorpCode).padStart(8, '0');
    // Only a code a test chose itself can be in the way.
    while (this.indexByCode.has(code)) code = String(++this.lastCorpCode).padStart(8, '0');
    return code;
  }

  /** Six characters, mostly digits ending in 0; a few alphanumeric ones like '0001A0' as issued since 2023. */
  private newStockCode(): string {
    for (;;) {
      const code = this.rng.chance(0.02) ? `${this.rng.digits(4)}${this.rng.pick(STOCK_CODE_LETTERS)}0` : `${this.rng.digits(5)}0`;
      if (!this.stockCodes.has(code)) return code;
    }
  }

  private require(corpCode: string): SandboxCompany {
    const company = this.company(corpCode);
    if (company === undefined) throw new RangeError(`no company with corp code ${corpCode}`);
    return company;
  }

  private update(corpCode: string, changes: Partial<SandboxCompany>): SandboxCompany {
    const index = this.indexByCode.get(corpCode);
    if (index === undefined) throw new RangeError(`no company with corp code ${corpCode}`);
    const before = this.companyList[index];
    // Records are replaced, never mutated, so views handed out earlier stay as they were.
    const after: SandboxCompany = { ...before, ...changes, modifyDate: this.options.today() };
    this.companyList[index] = after;
    if (after.market !== before.market) {
      const codes = this.codesByMarket[before.market];
      codes.splice(codes.indexOf(corpCode), 1);
      this.codesByMarket[after.market].push(corpCode);
    }
    this.version++;
    return after;
  }
}

function toRow(filing: StoredFiling): DartFiling {
  const { superseded: _superseded, ...row } = filing;
  return row;
}

/** The first index whose filing's rcept_no is not below `rceptNo`. */
function lowerBound(filings: readonly StoredFiling[], rceptNo: string): number {
  let low = 0;
  let high = filings.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (filings[mid].rcept_no < rceptNo) low = mid + 1;
    else high = mid;
  }
  return low;
}
