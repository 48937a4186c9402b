import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { DartCompany } from '../upstream/dart/dart.types';

/** A company.json answer, kept until it is older than COMPANY_MAX_AGE_MS. Written only by CompaniesRepository. */
@Entity('companies')
export class CompanyEntity {
  @PrimaryColumn({ name: 'corp_code', type: 'char', length: 8 })
  corpCode: string;

  @Column({ type: 'jsonb' })
  data: DartCompany;

  @Column({ name: 'fetched_at', type: 'timestamptz' })
  fetchedAt: Date;
}
