import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A filing of the disclosure system, as collected. */
@Entity('disclosures')
export class DisclosureEntity {
  @PrimaryColumn({ name: 'rcept_no', type: 'char', length: 14 })
  rceptNo: string;

  @Column({ name: 'corp_code', type: 'char', length: 8 })
  corpCode: string;

  /** The company name at filing time. */
  @Column({ name: 'corp_name', type: 'varchar', length: 255 })
  corpName: string;

  /** Empty for unlisted filers. */
  @Column({ name: 'stock_code', type: 'varchar', length: 6 })
  stockCode: string;

  @Column({ name: 'corp_cls', type: 'char', length: 1, nullable: true })
  corpCls: string | null;

  @Column({ name: 'report_name', type: 'varchar', length: 500 })
  reportName: string;

  /** YYYYMMDD */
  @Column({ name: 'rcept_dt', type: 'char', length: 8 })
  rceptDt: string;

  @Column({ type: 'varchar', length: 255 })
  submitter: string;

  @Column({ type: 'varchar', length: 50 })
  remarks: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
