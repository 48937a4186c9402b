import { parseDartDocument } from '../document/dart-document';
import { isCorrection, reportFamily } from './report-family';

const plain = parseDartDocument('<P>본문</P>');

describe('report families', () => {
  it.each([
    ['사업보고서 (2023.12)', 'periodic', null],
    ['[기재정정]반기보고서 (2022.06)', 'periodic', null],
    ['감사보고서 (2025.12)', 'audit', null],
    ['연결감사보고서 (2025.12)', 'audit', null],
    ['단일판매ㆍ공급계약체결', 'event', 'supply_contract'],
    ['단일판매ㆍ공급계약해지', 'event', 'contract_termination'],
    ['연결재무제표기준영업(잠정)실적(공정공시)', 'event', 'earnings'],
    ['주요사항보고서(유상증자결정)', 'event', 'share_issue'],
    ['주요사항보고서(전환사채권발행결정)', 'event', 'bonds'],
    ['주요사항보고서(자기주식취득결정)', 'event', 'buyback'],
    ['주요사항보고서(자기주식처분결정)', 'event', 'treasury_disposal'],
    ['주요사항보고서(감자결정)', 'event', 'capital_reduction'],
    ['타법인주식및출자증권취득결정', 'event', 'acquisition'],
    ['타법인주식및출자증권처분결정', 'event', 'disposal'],
    ['주요사항보고서(회사합병결정)', 'event', 'merger'],
    ['최대주주변경', 'event', 'largest_shareholder'],
    ['소송등의제기ㆍ신청(일정금액이상의청구)', 'event', 'litigation'],
    ['현금ㆍ현물배당결정', 'event', 'dividend'],
    ['주요사항보고서(해산사유발생)', 'event', 'dissolution'],
    ['주요사항보고서(중요한자산양수도결정)', 'event', 'other'],
    ['기업설명회(IR)개최(안내공시)', 'other', null],
    ['감사보고서제출', 'other', null],
  ])('%s is %s (%s)', (reportName, family, eventKind) => {
    expect(reportFamily(reportName, plain)).toEqual({ family, eventKind });
  });

  it("lets the document's form decide first: an audit report attached to an annual report is an audit report", () => {
    const audit = parseDartDocument('<DOCUMENT><DOCUMENT-NAME ACODE="00760">감사보고서</DOCUMENT-NAME></DOCUMENT>');
    expect(reportFamily('사업보고서 (2023.12)', audit).family).toBe('audit');
  });

  it('knows a correction by its prefix', () => {
    expect(isCorrection('[기재정정]단일판매ㆍ공급계약체결')).toBe(true);
    expect(isCorrection('[첨부정정][기재정정]사업보고서 (2024.12)')).toBe(true);
    expect(isCorrection('[첨부추가]사업보고서 (2024.12)')).toBe(false);
    expect(isCorrection('단일판매ㆍ공급계약체결')).toBe(false);
  });
});
