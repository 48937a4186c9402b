import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { dartViewerUrl, isCorrection, REPORT_TYPES, type ReportType, reportTypeOf } from './report-type';

/** A filing as the API shows it (the specification's Disclosure resource). */
export class DisclosureView {
  @ApiProperty({ example: '20261121000123', description: '14 digits' })
  rcept_no: string;

  @ApiProperty({ example: '삼성전자', description: 'Company name at filing time' })
  corp_name: string;

  @ApiProperty({ example: '00126380' })
  corp_code: string;

  @ApiProperty({ example: '005930', description: 'Empty for unlisted filers' })
  stock_code: string;

  @ApiProperty({ example: '주요사항보고서(유상증자결정)' })
  report_name: string;

  @ApiProperty({ example: '20261121', description: 'YYYYMMDD' })
  rcept_dt: string;

  @ApiProperty({ example: '삼성전자' })
  submitter: string;

  @ApiPropertyOptional({
    description: 'One-line AI summary; absent until the analysis completed',
    example: '삼성전자, 시설자금 1조원 규모 유상증자 결정',
  })
  summary?: string;

  @ApiProperty({
    enum: REPORT_TYPES,
    example: 'major_event',
    description: 'The kind of filing, derived from the report name (docs/filings-and-companies.md)',
  })
  report_type: ReportType;

  @ApiProperty({ example: false, description: 'True for a correction of an earlier filing (`[기재정정]`-style titles)' })
  is_correction: boolean;

  @ApiProperty({
    example: 'https://dart.fss.or.kr/dsaf001/main.do?rcpNo=20261121000123',
    description: "The disclosure system's public viewer of the filing",
  })
  dart_url: string;
}

/** The fields every Disclosure carries beside the stored ones, derived from them. */
export function derivedDisclosureFields(
  rceptNo: string,
  reportName: string,
): Pick<DisclosureView, 'report_type' | 'is_correction' | 'dart_url'> {
  return { report_type: reportTypeOf(reportName), is_correction: isCorrection(reportName), dart_url: dartViewerUrl(rceptNo) };
}

/** Row shape of the reads below; `summary` is null without a completed analysis. */
export interface DisclosureRow {
  rcept_no: string;
  corp_name: string;
  corp_code: string;
  stock_code: string;
  report_name: string;
  rcept_dt: string;
  submitter: string;
  summary: string | null;
}

export function toDisclosureView(row: DisclosureRow): DisclosureView {
  const view: DisclosureView = {
    rcept_no: row.rcept_no,
    corp_name: row.corp_name,
    corp_code: row.corp_code,
    stock_code: row.stock_code,
    report_name: row.report_name,
    rcept_dt: row.rcept_dt,
    submitter: row.submitter,
    ...derivedDisclosureFields(row.rcept_no, row.report_name),
  };
  if (row.summary) view.summary = row.summary;
  return view;
}
