import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A filing of the disclosure system, as collected. Written only by DisclosuresRepository.
 *
 * Every read orders by (rcept_dt, created_at, rcept_no) descending: the feed and date
 * ranges walk ix_disclosures_feed, a company's filings ix_disclosures_corp_feed. TypeORM
 * cannot declare DESC columns, so both are named here with `synchronize: false`: the
 * migration creates them and the schema diff leaves them alone.
 */
@Entity('disclosures')
@Check('ck_disclosures_rcept_no', `rcept_no ~ '^[0-9]{14}$'`)
@Check('ck_disclosures_rcept_dt', `rcept_dt ~ '^[0-9]{8}$'`)
@Index('ix_disclosures_feed', { synchronize: false })
@Index('ix_disclosures_corp_feed', { synchronize: false })
export class DisclosureEntity {
  @PrimaryColumn({ name: 'rcept_no', type: 'char', length: 14 })
  rceptNo: string;

  @Column({ name: 'corp_code', type: 'char', length: 8 })
  corpCode: string;

  /** The company name at filing time. */
  @Column({ name: 'corp_name', type: 'varchar', length: 255 })
  corpName: string;

  /** Empty for unlisted filers. */
  @Column({ name: 'stock_code', type: 'varchar', length: 6, default: '' })
  stockCode: string;

  @Column({ name: 'corp_cls', type: 'char', length: 1, nullable: true })
  corpCls: string | null;

  @Column({ name: 'report_name', type: 'varchar', length: 500 })
  reportName: string;

  /** YYYYMMDD */
  @Column({ name: 'rcept_dt', type: 'char', length: 8 })
  rceptDt: string;

  @Column({ type: 'varchar', length: 255, default: '' })
  submitter: string;

  @Column({ type: 'varchar', length: 50, default: '' })
  remarks: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
