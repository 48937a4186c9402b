import { ApiProperty } from '@nestjs/swagger';

/** The disclosure system's company record (company.json without its status fields). */
export class CompanyView {
  @ApiProperty({ example: '00126380' }) corp_code: string;
  @ApiProperty({ example: '삼성전자' }) corp_name: string;
  @ApiProperty({ example: 'SAMSUNG ELECTRONICS CO,.LTD' }) corp_name_eng: string;
  @ApiProperty({ example: '삼성전자' }) stock_name: string;
  @ApiProperty({ example: '005930' }) stock_code: string;
  @ApiProperty({ description: 'Chief executive', example: '전영현' }) ceo_nm: string;
  @ApiProperty({ enum: ['Y', 'K', 'N', 'E'], description: 'Y main, K second, N third board, E other' }) corp_cls: string;
  @ApiProperty({ description: 'Corporate registration number', example: '1301110006246' }) jurir_no: string;
  @ApiProperty({ description: 'Business registration number', example: '1248100998' }) bizr_no: string;
  @ApiProperty({ description: 'Address', example: '경기도 수원시 영통구 삼성로 129 (매탄동)' }) adres: string;
  @ApiProperty({ example: 'www.samsung.com/sec' }) hm_url: string;
  @ApiProperty({ example: '' }) ir_url: string;
  @ApiProperty({ example: '02-2255-0114' }) phn_no: string;
  @ApiProperty({ example: '031-200-7538' }) fax_no: string;
  @ApiProperty({ description: 'Industry code', example: '264' }) induty_code: string;
  @ApiProperty({ description: 'Founding date, YYYYMMDD', example: '19690113' }) est_dt: string;
  @ApiProperty({ description: 'Fiscal year-end month, MM', example: '12' }) acc_mt: string;
}
