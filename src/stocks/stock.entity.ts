import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export type MarketType = 'Y' | 'K';

/** A listed company of the main (Y) or second (K) board: the stock master. Written only by StocksRepository. */
@Entity('stocks')
@Check('ck_stocks_market_type', `market_type IN ('Y', 'K')`)
@Index('ix_stocks_stock_code', ['stockCode'])
@Index('ix_stocks_corp_name', ['corpName'])
export class StockEntity {
  @PrimaryColumn({ name: 'corp_code', type: 'char', length: 8 })
  corpCode: string;

  @Column({ name: 'corp_name', type: 'varchar', length: 255 })
  corpName: string;

  @Column({ name: 'stock_code', type: 'varchar', length: 6 })
  stockCode: string;

  @Column({ name: 'market_type', type: 'char', length: 1 })
  marketType: MarketType;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
