import { parseDartDocument } from '../document/dart-document';
import { realDocument, realMarkup, samsungAnnualReportMarkup } from '../../../test/support/real-filings';
import { readAuditor, readOpinion, readOpinionFromText } from './audit-opinion';

describe('the audit opinion and the auditor of real filings', () => {
  it.each([
    ['20260630000641_00760.audit-kgaap-tagged.xml', '적정'],
    ['20240329003157_00760.audit-kifrs-note-column.xml', '적정'],
    ['20230404002324_00760.audit-qualified-loss.xml', '한정'],
    ['20220127000408_00760.audit-euckr-disclaimer.xml', '의견거절'],
    ['20260630000634_00760.audit-disclaimer-cover-auditor.xml', '의견거절'],
    ['20230403002788_00760.audit-disclaimer-address.xml', '의견거절'],
    ['20120110000138_00760.audit-2011-prose-opinion.xml', '적정'],
  ])("%s: %s, from the tag, and the auditor's own words say the same", (file, opinion) => {
    const document = realDocument(file);
    expect(readOpinion(document)).toEqual({ value: opinion, source: 'tag' });
    expect(readOpinionFromText(document)).toBe(opinion);
  });

  it('reads the words when the SUMMARY carries no opinion code', () => {
    const untagged = (file: string) => parseDartDocument(realMarkup(file).replace(/<EXTRACTION ACODE="SUPV_OPIN"[^<]*<\/EXTRACTION>/, ''));
    // 2011: no heading, the opinion is a sentence ("… 적정하게 표시하고 있습니다").
    expect(readOpinion(untagged('20120110000138_00760.audit-2011-prose-opinion.xml'))).toEqual({ value: '적정', source: 'text' });
    // A qualified opinion whose paragraph goes on to a 강조사항 and 기타사항.
    expect(readOpinion(untagged('20230404002324_00760.audit-qualified-loss.xml'))).toEqual({ value: '한정', source: 'text' });
    // A disclaimer whose 기타사항 recalls the prior year's 적정의견: the first opinion stated counts.
    expect(readOpinion(untagged('20220127000408_00760.audit-euckr-disclaimer.xml'))).toEqual({ value: '의견거절', source: 'text' });
  });

  it("never reads a review's clean conclusion as an adverse opinion", () => {
    const review = parseDartDocument(
      '<SECTION-1><TITLE>독립된 감사인의 감사보고서</TITLE><P>우리의 검토결과 상기 반기재무제표가 중요성의 관점에서 공정하게 표시하고 있지 않다는 점이 발견되지 아니하였습니다.</P></SECTION-1>',
    );
    expect(readOpinionFromText(review)).toBeNull();
    const adverse = parseDartDocument(
      '<SECTION-1><TITLE>독립된 감사인의 감사보고서</TITLE><P>재무제표는 … 공정하게 표시하고 있지 않습니다.</P></SECTION-1>',
    );
    expect(readOpinionFromText(adverse)).toBe('부적정');
  });

  it("reads a periodic report's opinion and auditor from its tagged opinion table", () => {
    const document = parseDartDocument(samsungAnnualReportMarkup());
    expect(readOpinion(document)).toEqual({ value: '적정', source: 'tag' });
    expect(readAuditor(document)).toBe('삼정회계법인');
  });

  it('names the auditor that signed, never a firm the prose mentions', () => {
    // The 기타사항 says the prior year was audited by 성문회계법인; the cover names the auditor.
    expect(readAuditor(realDocument('20260630000634_00760.audit-disclaimer-cover-auditor.xml'))).toBe('삼일회계법인');
    // dart3: the firm on its own line after &cr; breaks, before its accountants' names.
    expect(readAuditor(realDocument('20220127000408_00760.audit-euckr-disclaimer.xml'))).toBe('송림공인회계사감사반');
    expect(readAuditor(realDocument('20120110000138_00760.audit-2011-prose-opinion.xml'))).toBe('서일회계법인');
    // A registered team of accountants with its number.
    expect(readAuditor(realDocument('20230404002324_00760.audit-qualified-loss.xml'))).toBe('이백십호공인회계사감사반(제210호)');
    // No firm named anywhere in the text (its name is in the seal's image): none.
    expect(readAuditor(realDocument('20240329003157_00760.audit-kifrs-note-column.xml'))).toBeNull();
  });
});
