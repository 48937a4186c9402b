import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { preparedStatement } from '../database/prepared-statements';
import type { DartCompany } from '../upstream/dart/dart.types';
import { CompanyEntity } from './company.entity';

/** What is known locally about a corp code. */
export interface StoredCompany {
  /** The code is in corpCode.xml (table corp_codes, kept by the stock sync). */
  known: boolean;
  data: DartCompany | null;
  fetchedAt: Date | null;
}

const FIND_STATEMENT = preparedStatement(
  'companies_find',
  `SELECT k.corp_code IS NOT NULL AS known, c.data, c.fetched_at
   FROM (VALUES ($1::char(8))) AS wanted (corp_code)
   LEFT JOIN corp_codes k ON k.corp_code = wanted.corp_code
   LEFT JOIN companies c ON c.corp_code = wanted.corp_code`,
);

/** Owner of table companies: the only writer. company.json answers, stored on first read and refreshed when stale. */
@Injectable()
export class CompaniesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** One statement: whether the code is known, and the stored answer if any. */
  async find(corpCode: string): Promise<StoredCompany> {
    const [row] = await this.dataSource.query<{ known: boolean; data: DartCompany | null; fetched_at: Date | null }[]>(FIND_STATEMENT, [
      corpCode,
    ]);
    return { known: row.known, data: row.data, fetchedAt: row.fetched_at };
  }

  /** Stores (or replaces) the answer for the code. */
  async save(corpCode: string, data: DartCompany, fetchedAt: Date): Promise<void> {
    await this.dataSource.getRepository(CompanyEntity).upsert({ corpCode, data, fetchedAt }, ['corpCode']);
  }
}
