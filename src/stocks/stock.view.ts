import { ApiProperty } from '@nestjs/swagger';

export class StockView {
  @ApiProperty({ example: '00126380' })
  corp_code: string;

  @ApiProperty({ example: '삼성전자' })
  corp_name: string;

  @ApiProperty({ example: '005930' })
  stock_code: string;

  @ApiProperty({ enum: ['Y', 'K'], description: 'Y main board, K second board' })
  market_type: 'Y' | 'K';
}

export class ActiveStockView {
  @ApiProperty({ example: '00126380' })
  corp_code: string;

  @ApiProperty({ example: '삼성전자', description: 'As on the latest summarised filing of the day' })
  corp_name: string;

  @ApiProperty({ example: '005930' })
  stock_code: string;
}
