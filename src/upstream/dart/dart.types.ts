/**
 * The disclosure system (OpenDART) as the service sees it. Field names of the
 * upstream payloads are kept as they are on the wire.
 */

/** `corp_cls`: Y main board, K second board, N third board, E other. */
export type CorpClass = 'Y' | 'K' | 'N' | 'E';

/** Parameters of `list.json`. Dates are YYYYMMDD. */
export interface DartListQuery {
  corpCode?: string;
  bgnDe?: string;
  endDe?: string;
  corpCls?: CorpClass;
  lastReprtAt?: 'Y' | 'N';
  pageNo?: number;
  /** 1..100 */
  pageCount?: number;
}

/** One row of `list.json`. */
export interface DartFiling {
  corp_code: string;
  corp_name: string;
  /** Empty for unlisted filers. */
  stock_code: string;
  corp_cls: CorpClass;
  report_nm: string;
  rcept_no: string;
  flr_nm: string;
  rcept_dt: string;
  rm: string;
}

export interface DartListPage {
  pageNo: number;
  pageCount: number;
  totalCount: number;
  totalPage: number;
  /** Empty when the upstream answered 013 (no data). */
  items: DartFiling[];
}

/** One `<list>` entry of `corpCode.xml`. */
export interface CorpCodeEntry {
  corpCode: string;
  corpName: string;
  corpEngName: string;
  /** Null when the entry carries no stock code (the file has a single space then). */
  stockCode: string | null;
  modifyDate: string;
}

/** `company.json` without its status fields. */
export interface DartCompany {
  corp_code: string;
  corp_name: string;
  corp_name_eng: string;
  stock_name: string;
  stock_code: string;
  ceo_nm: string;
  corp_cls: CorpClass;
  jurir_no: string;
  bizr_no: string;
  adres: string;
  hm_url: string;
  ir_url: string;
  phn_no: string;
  fax_no: string;
  induty_code: string;
  est_dt: string;
  acc_mt: string;
}

/**
 * Why a call failed, by what the caller should do:
 * - `configuration` (010, 011, 012, 901): the key is unusable; stop the job and show it.
 * - `transient` (020, 800, 900, network, timeout, HTTP 5xx) after the bounded retries ran out.
 * - `request` (021, 100, 101, anything unexpected): a bug in our call.
 * - `missing` (014 from document.xml): the filing has no document file; asking again will not help.
 * - `budget` (020, or our own request budget refused: 'BUSY', 'DAILY_LIMIT'): nothing is wrong with the
 *   call; wait `retryAfterMs` and ask again. It never counts as a failed attempt.
 */
export type DartErrorKind = 'configuration' | 'transient' | 'request' | 'missing' | 'budget';

export class DartError extends Error {
  constructor(
    readonly kind: DartErrorKind,
    /** The body status (e.g. '011'), or 'HTTP 503' / 'NETWORK' / 'TIMEOUT' / 'TOO_LARGE' / 'BUSY' / 'DAILY_LIMIT'. */
    readonly status: string,
    message: string,
    /** `budget` errors: how long until asking again can succeed. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'DartError';
  }
}
