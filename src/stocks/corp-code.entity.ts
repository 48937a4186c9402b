import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An entry of the disclosure system's corpCode.xml, listed or not. Written only by CorpCodesRepository. */
@Entity('corp_codes')
export class CorpCodeEntity {
  @PrimaryColumn({ name: 'corp_code', type: 'char', length: 8 })
  corpCode: string;

  @Column({ name: 'corp_name', type: 'varchar', length: 255 })
  corpName: string;

  @Column({ name: 'corp_eng_name', type: 'varchar', length: 255, default: '' })
  corpEngName: string;

  @Column({ name: 'stock_code', type: 'varchar', length: 6, nullable: true })
  stockCode: string | null;

  @Column({ name: 'modify_date', type: 'char', length: 8, default: '' })
  modifyDate: string;

  /** The market company.json gave at the last lookup (Y, K, N or E). */
  @Column({ name: 'corp_cls', type: 'char', length: 1, nullable: true })
  corpCls: string | null;

  /** The stock sync already looked up this company's market. */
  @Column({ name: 'checked_at', type: 'timestamptz', nullable: true })
  checkedAt: Date | null;

  @Column({ name: 'first_seen_at', type: 'timestamptz', default: () => 'now()' })
  firstSeenAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
