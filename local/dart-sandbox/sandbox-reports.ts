import { addDays } from '../../src/common/korea-time';

/** Who signs a filing: the company itself, an insider (a person), or a large holder (person or institution). */
export type Filer = 'company' | 'insider' | 'holder';

export interface ReportKind {
  weight: number;
  /** The report name on a given filing date (YYYYMMDD); periodic reports name their period. */
  title: (date: string) => string;
  filer: Filer;
  /** Filed through the exchange: `rm` carries the market flag (유 main board, 코 second, 넥 third). */
  exchange?: boolean;
  /** A fixed remark flag, e.g. 공 for filings to the Fair Trade Commission. */
  rm?: string;
  /** Can be corrected later by a [기재정정] filing. */
  correctable?: boolean;
}

const fixed = (title: string) => (): string => title;

/** The periodic report due around `date`: the last quarter that ended at least 45 days before. */
function periodicReport(date: string): string {
  const reference = addDays(date, -45);
  let year = Number(reference.slice(0, 4));
  let month = Math.floor((Number(reference.slice(4, 6)) - 1) / 3) * 3;
  if (month === 0) {
    year -= 1;
    month = 12;
  }
  if (month === 12) return `사업보고서 (${year}.12)`;
  if (month === 6) return `반기보고서 (${year}.06)`;
  return `분기보고서 (${year}.${String(month).padStart(2, '0')})`;
}

const previousYear = (date: string): number => Number(date.slice(0, 4)) - 1;

/** What listed companies (and their insiders and holders) file, roughly in the proportions seen on a business day. */
export const LISTED_REPORTS: readonly ReportKind[] = [
  { weight: 18, title: fixed('임원ㆍ주요주주특정증권등소유상황보고서'), filer: 'insider' },
  { weight: 5, title: fixed('주식등의대량보유상황보고서(일반)'), filer: 'holder' },
  { weight: 3, title: fixed('주식등의대량보유상황보고서(약식)'), filer: 'holder' },
  { weight: 6, title: fixed('단일판매ㆍ공급계약체결'), filer: 'company', exchange: true, correctable: true },
  { weight: 3, title: fixed('연결재무제표기준영업(잠정)실적(공정공시)'), filer: 'company', exchange: true },
  { weight: 3, title: fixed('주요사항보고서(유상증자결정)'), filer: 'company', correctable: true },
  { weight: 2, title: fixed('주요사항보고서(자기주식취득결정)'), filer: 'company', correctable: true },
  { weight: 2, title: fixed('주요사항보고서(전환사채권발행결정)'), filer: 'company', correctable: true },
  { weight: 3, title: fixed('최대주주등소유주식변동신고서'), filer: 'company', exchange: true },
  { weight: 2, title: fixed('현금ㆍ현물배당결정'), filer: 'company', exchange: true, correctable: true },
  { weight: 2, title: fixed('기업설명회(IR)개최(안내공시)'), filer: 'company', exchange: true },
  { weight: 2, title: fixed('타법인주식및출자증권취득결정'), filer: 'company', exchange: true, correctable: true },
  { weight: 4, title: periodicReport, filer: 'company', correctable: true },
  { weight: 2, title: fixed('주주총회소집결의'), filer: 'company', exchange: true },
  { weight: 1, title: fixed('증권발행실적보고서'), filer: 'company' },
  { weight: 1, title: fixed('투자설명서'), filer: 'company' },
  { weight: 1, title: fixed('증권신고서(지분증권)'), filer: 'company', correctable: true },
  { weight: 1, title: fixed('감사보고서제출'), filer: 'company', exchange: true },
];

/** What unlisted companies file: audit reports above all. */
export const UNLISTED_REPORTS: readonly ReportKind[] = [
  { weight: 8, title: (date) => `감사보고서 (${previousYear(date)}.12)`, filer: 'company', correctable: true },
  { weight: 3, title: (date) => `연결감사보고서 (${previousYear(date)}.12)`, filer: 'company' },
  { weight: 2, title: fixed('대규모기업집단현황공시[분기별공시(개별회사용)]'), filer: 'company', rm: '공' },
  { weight: 2, title: fixed('증권신고서(채무증권)'), filer: 'company', correctable: true },
  { weight: 1, title: fixed('투자설명서'), filer: 'company' },
  { weight: 1, title: fixed('주요사항보고서(회사합병결정)'), filer: 'company', correctable: true },
  { weight: 1, title: fixed('소액공모공시서류'), filer: 'company' },
];
