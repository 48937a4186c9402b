import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { preparedStatement } from '../database/prepared-statements';
import type { DartFiling } from '../upstream/dart/dart.types';
import { DisclosureEntity } from './disclosure.entity';
import { type DisclosureRow, type DisclosureView, toDisclosureView } from './disclosure.view';
import { FEED_LIMITS } from './dto/list-disclosures.dto';

/** A listed company as its latest summarised filing names it (the stocks feature answers it as ActiveStockView). */
export interface SummarisedCompany {
  corp_code: string;
  corp_name: string;
  stock_code: string;
}

export interface DisclosureFilter {
  corpCode?: string;
  beginDate?: string;
  endDate?: string;
  /** Only filings with a completed, non-empty one-line summary. */
  withSummary?: boolean;
  limit: number;
}

/** Newest first everywhere: filing date, then creation time, then receipt number. */
const ORDER = 'ORDER BY d.rcept_dt DESC, d.created_at DESC, d.rcept_no DESC';
const COLUMNS = `d.rcept_no, d.corp_name, d.corp_code, d.stock_code, d.report_name, d.rcept_dt, d.submitter`;
/** A summary is a completed analysis with a non-empty one-liner (ix_analyses_summarised). */
const SUMMARY_JOIN = `JOIN analyses a ON a.rcept_no = d.rcept_no AND a.status = 'COMPLETED' AND a.one_liner <> ''`;
const OPTIONAL_SUMMARY_JOIN = `LEFT ${SUMMARY_JOIN}`;

/** Which filters a feed read applies; each combination has its prepared statements. */
interface FeedShape {
  byCompany: boolean;
  byDates: boolean;
  summarised: boolean;
}

interface FeedStatements {
  /** Parameters: the company, the two dates (each if used), then the limit. */
  anyLimit: string;
  /** For a shape that filters on no value: the statement with its route's default limit written in. */
  defaultLimit?: { limit: number; text: string };
}

function feedStatements({ byCompany, byDates, summarised }: FeedShape): FeedStatements {
  const conditions: string[] = [];
  let parameters = 0;
  if (byCompany) conditions.push(`d.corp_code = $${++parameters}`);
  if (byDates) conditions.push(`d.rcept_dt BETWEEN $${++parameters} AND $${++parameters}`);
  const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
  const join = summarised ? SUMMARY_JOIN : OPTIONAL_SUMMARY_JOIN;
  const name = ['disclosures_feed', byCompany && 'company', byDates && 'dates', summarised && 'summarised'].filter(Boolean).join('_');
  const statement = (limit: string) =>
    `SELECT ${COLUMNS}, a.one_liner AS summary FROM disclosures d ${join} ${where} ${ORDER} LIMIT ${limit}`;
  const anyLimit = preparedStatement(name, statement(`$${parameters + 1}`));
  if (parameters > 0) return { anyLimit };
  // PostgreSQL plans a LIMIT given as a parameter as if it kept a tenth of the rows, so it
  // plans such a statement again on every execution. The newest filings and the newest
  // summarised ones have no other parameter: with the limit written in, PostgreSQL plans
  // them once per connection. Only for the default limit, which most requests ask for,
  // since a connection keeps every statement it prepared.
  const limit = summarised ? FEED_LIMITS.summarised.fallback : FEED_LIMITS.recent.fallback;
  return { anyLimit, defaultLimit: { limit, text: preparedStatement(`${name}_limit_${limit}`, statement(String(limit))) } };
}

const feedKey = ({ byCompany, byDates, summarised }: FeedShape) => (byCompany ? 4 : 0) + (byDates ? 2 : 0) + (summarised ? 1 : 0);

/** The statements of the eight feed shapes, registered once (prepared-statements.ts), by `feedKey`. */
const FEED_STATEMENTS: readonly FeedStatements[] = Array.from({ length: 8 }, (_, key) =>
  feedStatements({ byCompany: (key & 4) !== 0, byDates: (key & 2) !== 0, summarised: (key & 1) !== 0 }),
);

const FILING_STATEMENT = preparedStatement(
  'disclosures_filing',
  `SELECT ${COLUMNS}, a.one_liner AS summary FROM disclosures d ${OPTIONAL_SUMMARY_JOIN} WHERE d.rcept_no = $1`,
);

const SUMMARISED_COMPANIES_STATEMENT = preparedStatement(
  'disclosures_summarised_companies',
  `SELECT corp_code, corp_name, stock_code FROM (
     SELECT DISTINCT ON (d.corp_code) d.corp_code, d.corp_name, d.stock_code, d.rcept_dt, d.rcept_no
     FROM disclosures d
     ${SUMMARY_JOIN}
     WHERE d.rcept_dt = $1 AND d.stock_code <> ''
     ORDER BY d.corp_code, d.rcept_dt DESC, d.rcept_no DESC
   ) latest
   ORDER BY rcept_dt DESC, rcept_no DESC
   LIMIT $2`,
);

/**
 * Owner of table disclosures: the only writer. The disclosure ingest stores new
 * filings through `insertNew`; the public reads (the feed, a company's filings, a
 * day's active companies) are index-ordered statements written for the feed indexes
 * and ix_analyses_summarised: keep their shape when changing them (docs/benchmarks.md).
 */
@Injectable()
export class DisclosuresRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Inserts the filings that are not stored yet, in the caller's transaction; returns
   * the receipt numbers inserted. Existing filings are never touched.
   */
  async insertNew(manager: EntityManager, filings: DartFiling[]): Promise<string[]> {
    const column = <K extends keyof DartFiling>(key: K, max: number) => filings.map((f) => (f[key] ?? '').trim().slice(0, max));
    const rows = await manager.query<{ rcept_no: string }[]>(
      `INSERT INTO disclosures (rcept_no, corp_code, corp_name, stock_code, corp_cls, report_name, rcept_dt, submitter, remarks)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
       ON CONFLICT (rcept_no) DO NOTHING
       RETURNING rcept_no`,
      [
        column('rcept_no', 14),
        column('corp_code', 8),
        column('corp_name', 255),
        column('stock_code', 6),
        filings.map((f) => f.corp_cls?.trim().slice(0, 1) || null),
        column('report_nm', 500),
        column('rcept_dt', 8),
        column('flr_nm', 255),
        column('rm', 50),
      ],
    );
    return rows.map((row) => row.rcept_no);
  }

  /** The receipt numbers of the filings stored for one filing date (YYYYMMDD). */
  async receiptNumbersOn(rceptDt: string): Promise<Set<string>> {
    const rows = await this.dataSource.getRepository(DisclosureEntity).find({ select: { rceptNo: true }, where: { rceptDt } });
    return new Set(rows.map((row) => row.rceptNo));
  }

  async findOne(rceptNo: string): Promise<DisclosureView | null> {
    const rows = await this.dataSource.query<DisclosureRow[]>(FILING_STATEMENT, [rceptNo]);
    return rows.length === 0 ? null : toDisclosureView(rows[0]);
  }

  async list(filter: DisclosureFilter): Promise<DisclosureView[]> {
    const shape: FeedShape = {
      byCompany: filter.corpCode !== undefined,
      byDates: filter.beginDate !== undefined && filter.endDate !== undefined,
      summarised: filter.withSummary === true,
    };
    const statements = FEED_STATEMENTS[feedKey(shape)];
    let rows: DisclosureRow[];
    if (statements.defaultLimit?.limit === filter.limit) {
      rows = await this.dataSource.query<DisclosureRow[]>(statements.defaultLimit.text, []);
    } else {
      const params: unknown[] = [];
      if (shape.byCompany) params.push(filter.corpCode);
      if (shape.byDates) params.push(filter.beginDate, filter.endDate);
      params.push(filter.limit);
      rows = await this.dataSource.query<DisclosureRow[]>(statements.anyLimit, params);
    }
    return rows.map(toDisclosureView);
  }

  /**
   * The newest filings of the companies `userId` watches, with their summaries, in the
   * feed order; `before` (a receipt number) continues after that filing. Each watched
   * company is read through ix_disclosures_corp_feed for at most `limit` rows after the
   * cursor, then the few hundred candidates are merged: the cost follows the watchlist
   * (at most 100 companies), never the size of the table. Null when `before` names no filing.
   */
  async watchedFeed(userId: number, limit: number, before?: string): Promise<DisclosureView[] | null> {
    // created_at travels as text: the column keeps microseconds, a JavaScript Date only
    // milliseconds, and filings stored in one transaction share one created_at.
    let cursor: { rcept_dt: string; created_at: string; rcept_no: string } | null = null;
    if (before !== undefined) {
      [cursor] = await this.dataSource.query<{ rcept_dt: string; created_at: string; rcept_no: string }[]>(
        'SELECT rcept_dt, created_at::text AS created_at, rcept_no FROM disclosures WHERE rcept_no = $1',
        [before],
      );
      if (cursor === undefined) return null;
    }
    const after = cursor === null ? '' : 'AND (d.rcept_dt, d.created_at, d.rcept_no) < ($3, $4::timestamptz, $5)';
    const rows = await this.dataSource.query<DisclosureRow[]>(
      `SELECT f.rcept_no, f.corp_name, f.corp_code, f.stock_code, f.report_name, f.rcept_dt, f.submitter, a.one_liner AS summary
       FROM watch_stocks w
       CROSS JOIN LATERAL (
         SELECT ${COLUMNS}, d.created_at FROM disclosures d
         WHERE d.corp_code = w.corp_code ${after}
         ${ORDER} LIMIT $2
       ) f
       LEFT JOIN analyses a ON a.rcept_no = f.rcept_no AND a.status = 'COMPLETED' AND a.one_liner <> ''
       WHERE w.user_id = $1
       ORDER BY f.rcept_dt DESC, f.created_at DESC, f.rcept_no DESC
       LIMIT $2`,
      cursor === null ? [userId, limit] : [userId, limit, cursor.rcept_dt, cursor.created_at, cursor.rcept_no],
    );
    return rows.map(toDisclosureView);
  }

  /**
   * Listed companies with at least one filing dated `rceptDt` that has a completed,
   * non-empty summary: one entry each, from its latest such filing, newest first.
   */
  async summarisedCompaniesOn(rceptDt: string, limit: number): Promise<SummarisedCompany[]> {
    return this.dataSource.query<SummarisedCompany[]>(SUMMARISED_COMPANIES_STATEMENT, [rceptDt, limit]);
  }
}
