import { LISTED_REPORTS, UNLISTED_REPORTS } from '../../local/dart-sandbox/sandbox-reports';
import { dartViewerUrl, isCorrection, reportTypeOf } from './report-type';

describe('reportTypeOf', () => {
  it.each([
    ['사업보고서 (2025.12)', 'periodic'],
    ['[기재정정]반기보고서 (2026.06)', 'periodic'],
    ['분기보고서 (2026.09)', 'periodic'],
    ['주요사항보고서(유상증자결정)', 'major_event'],
    ['[기재정정]주요사항보고서(자기주식취득결정)', 'major_event'],
    ['증권신고서(지분증권)', 'securities_issuance'],
    ['투자설명서', 'securities_issuance'],
    ['증권발행실적보고서', 'securities_issuance'],
    ['소액공모공시서류', 'securities_issuance'],
    ['임원ㆍ주요주주특정증권등소유상황보고서', 'ownership'],
    ['주식등의대량보유상황보고서(약식)', 'ownership'],
    ['최대주주등소유주식변동신고서', 'ownership'],
    ['감사보고서 (2025.12)', 'audit'],
    ['연결감사보고서 (2025.12)', 'audit'],
    ['감사보고서제출', 'exchange'],
    ['단일판매ㆍ공급계약체결', 'exchange'],
    ['[기재정정]현금ㆍ현물배당결정', 'exchange'],
    ['연결재무제표기준영업(잠정)실적(공정공시)', 'exchange'],
    ['기업설명회(IR)개최(안내공시)', 'exchange'],
    ['대규모기업집단현황공시[분기별공시(개별회사용)]', 'other'],
    ['', 'other'],
  ])('%s is %s', (name, type) => {
    expect(reportTypeOf(name)).toBe(type);
  });

  it('places every report the sandbox files in a category (the other sandbox titles are group reports)', () => {
    const date = '20261124';
    const titles = [...LISTED_REPORTS, ...UNLISTED_REPORTS].map((kind) => kind.title(date));
    const other = titles.filter((title) => reportTypeOf(title) === 'other');
    expect(other).toEqual(['대규모기업집단현황공시[분기별공시(개별회사용)]']);
  });
});

describe('isCorrection', () => {
  it.each([
    ['[기재정정]주요사항보고서(유상증자결정)', true],
    ['[첨부정정]투자설명서', true],
    ['[첨부추가]증권신고서(지분증권)', false],
    ['주요사항보고서(유상증자결정)', false],
    ['대규모기업집단현황공시[분기별공시(개별회사용)]', false],
    ['정정신고서', false],
  ])('%s: %s', (name, expected) => {
    expect(isCorrection(name)).toBe(expected);
  });
});

describe('dartViewerUrl', () => {
  it('links the public viewer of the filing', () => {
    expect(dartViewerUrl('20261124000123')).toBe('https://dart.fss.or.kr/dsaf001/main.do?rcpNo=20261124000123');
  });
});
