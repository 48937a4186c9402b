import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import type { ImpactLevel } from '../analysis/analyzers/analysis-result.schema';
import type { ReportType } from '../disclosures/report-type';
import { UserEntity } from '../users/user.entity';

/** A company on a user's watchlist; name and stock code are copied from the stock master when added. Written only by WatchStocksRepository. */
@Entity('watch_stocks')
@Unique('uq_watch_stocks_user_corp', ['userId', 'corpCode'])
@Check(
  'ck_watch_stocks_categories',
  `categories <@ ARRAY['periodic', 'major_event', 'securities_issuance', 'ownership', 'exchange', 'audit', 'other']::varchar[]`,
)
@Check('ck_watch_stocks_min_impact', `min_impact IN ('low', 'medium', 'high')`)
// Partial, for the push fan-out: who watches this company with notifications on, in user id order.
@Index('ix_watch_stocks_corp_notify', ['corpCode', 'userId'], { where: 'notify_enabled' })
export class WatchStockEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'watch_stocks_user_id_fkey' })
  user?: UserEntity;

  @Column({ name: 'corp_code', type: 'char', length: 8 })
  corpCode: string;

  @Column({ name: 'corp_name', type: 'varchar', length: 255 })
  corpName: string;

  @Column({ name: 'stock_code', type: 'varchar', length: 6, nullable: true })
  stockCode: string | null;

  @Column({ name: 'notify_enabled', type: 'boolean', default: true })
  notifyEnabled: boolean;

  /** Push only filings of these categories (src/disclosures/report-type.ts); null: every category. */
  @Column({ type: 'varchar', length: 24, array: true, nullable: true })
  categories: ReportType[] | null;

  /** Push only filings whose analysis judged at least this impact (a filing not yet analysed passes); null: any. */
  @Column({ name: 'min_impact', type: 'varchar', length: 6, nullable: true })
  minImpact: ImpactLevel | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
