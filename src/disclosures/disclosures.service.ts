import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { type DisclosureRow, type DisclosureView, toDisclosureView } from './disclosure.view';

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
/** A summary is a completed analysis with a non-empty one-liner. */
const SUMMARY_JOIN = `JOIN analyses a ON a.rcept_no = d.rcept_no AND a.status = 'COMPLETED' AND a.one_liner <> ''`;
const OPTIONAL_SUMMARY_JOIN = `LEFT ${SUMMARY_JOIN}`;

/** The public reads of filings. */
@Injectable()
export class DisclosuresService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async recent(limit: number): Promise<DisclosureView[]> {
    return this.list({ limit });
  }

  async findOne(rceptNo: string): Promise<DisclosureView | null> {
    const rows = await this.dataSource.query<DisclosureRow[]>(
      `SELECT ${COLUMNS}, a.one_liner AS summary FROM disclosures d ${OPTIONAL_SUMMARY_JOIN} WHERE d.rcept_no = $1`,
      [rceptNo],
    );
    return rows.length === 0 ? null : toDisclosureView(rows[0]);
  }

  async list(filter: DisclosureFilter): Promise<DisclosureView[]> {
    const conditions: string[] = [];
    const params: unknown[] = [];
    if (filter.corpCode !== undefined) {
      params.push(filter.corpCode);
      conditions.push(`d.corp_code = $${params.length}`);
    }
    if (filter.beginDate !== undefined && filter.endDate !== undefined) {
      params.push(filter.beginDate, filter.endDate);
      conditions.push(`d.rcept_dt BETWEEN $${params.length - 1} AND $${params.length}`);
    }
    params.push(filter.limit);
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    const join = filter.withSummary ? SUMMARY_JOIN : OPTIONAL_SUMMARY_JOIN;
    const rows = await this.dataSource.query<DisclosureRow[]>(
      `SELECT ${COLUMNS}, a.one_liner AS summary FROM disclosures d ${join} ${where} ${ORDER} LIMIT $${params.length}`,
      params,
    );
    return rows.map(toDisclosureView);
  }
}
