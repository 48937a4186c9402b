import { ApiProperty } from '@nestjs/swagger';

/** The disclosure system's company record (company.json without its status fields). */
export class CompanyView {
  @ApiProperty({ example: '00126380' }) corp_code: string;
  @ApiProperty({ example: '삼성전자' }) corp_name: string;
  @ApiProperty({ example: 'SAMSUNG ELECTRONICS CO,.LTD' }) corp_name_eng: string;
  @ApiProperty({ example: '삼성전자' }) stock_name: string;
  @ApiProperty({ example: '005930' }) stock_code: string;
  @ApiProperty({ description: 'Chief executive' }) ceo_nm: string;
  @ApiProperty({ enum: ['Y', 'K', 'N', 'E'], description: 'Y main, K second, N third board, E other' }) corp_cls: string;
  @ApiProperty({ description: 'Corporate registration number' }) jurir_no: string;
  @ApiProperty({ description: 'Business registration number' }) bizr_no: string;
  @ApiProperty({ description: 'Address' }) adres: string;
  @ApiProperty() hm_url: string;
  @ApiProperty() ir_url: string;
  @ApiProperty() phn_no: string;
  @ApiProperty() fax_no: string;
  @ApiProperty({ description: 'Industry code' }) induty_code: string;
  @ApiProperty({ description: 'Founding date, YYYYMMDD' }) est_dt: string;
  @ApiProperty({ description: 'Fiscal year-end month, MM' }) acc_mt: string;
}
