import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull, Not } from 'typeorm';
import type { CorpCodeEntry } from '../upstream/dart/dart.types';
import { CorpCodeEntity } from './corp-code.entity';

/**
 * Owner of table corp_codes: the only writer. Every entry of the disclosure system's
 * corpCode.xml, kept by the stock sync; the company reads (CompaniesRepository) join it to
 * spend the disclosure-system budget only on known codes.
 */
@Injectable()
export class CorpCodesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Inserts or updates a batch of corpCode.xml entries; an unchanged entry is not rewritten. */
  async upsert(entries: CorpCodeEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.dataSource.query(
      `INSERT INTO corp_codes AS c (corp_code, corp_name, corp_eng_name, stock_code, modify_date)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
       ON CONFLICT (corp_code) DO UPDATE SET
         corp_name = EXCLUDED.corp_name, corp_eng_name = EXCLUDED.corp_eng_name,
         stock_code = EXCLUDED.stock_code, modify_date = EXCLUDED.modify_date, updated_at = now()
       WHERE (c.corp_name, c.corp_eng_name, c.stock_code, c.modify_date)
         IS DISTINCT FROM (EXCLUDED.corp_name, EXCLUDED.corp_eng_name, EXCLUDED.stock_code, EXCLUDED.modify_date)`,
      [
        entries.map((entry) => entry.corpCode),
        entries.map((entry) => entry.corpName.slice(0, 255)),
        entries.map((entry) => entry.corpEngName.slice(0, 255)),
        entries.map((entry) => entry.stockCode),
        entries.map((entry) => entry.modifyDate.slice(0, 8)),
      ],
    );
  }

  /** Stock-coded companies whose market the sync already looked up. */
  async checkedStockCoded(): Promise<Set<string>> {
    const rows = await this.dataSource.getRepository(CorpCodeEntity).find({
      select: { corpCode: true },
      where: { checkedAt: Not(IsNull()), stockCode: Not(IsNull()) },
    });
    return new Set(rows.map((row) => row.corpCode));
  }

  /** Stock-coded companies looked up at `since` or later (a resumed bootstrap skips them). */
  async checkedStockCodedSince(since: Date): Promise<Set<string>> {
    const rows: { corp_code: string }[] = await this.dataSource.query(
      'SELECT corp_code FROM corp_codes WHERE checked_at >= $1 AND stock_code IS NOT NULL',
      [since],
    );
    return new Set(rows.map((row) => row.corp_code));
  }

  /** Records the market company.json gave (null when it gave none) and that it was looked up. */
  async markChecked(corpCode: string, corpCls: string | null): Promise<void> {
    await this.dataSource.getRepository(CorpCodeEntity).update({ corpCode }, { corpCls, checkedAt: () => 'now()' });
  }
}
