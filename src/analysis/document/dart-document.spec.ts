import { documentText, linesText, markupToText, parseDartDocument } from './dart-document';

describe('markupToText', () => {
  it('keeps the header names, drops cover, summary and form version, and puts each block and row on a line', () => {
    const markup = `<?xml version="1.0" encoding="utf-8"?>
<DOCUMENT xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="dart4.xsd">
<DOCUMENT-NAME ACODE="00138">단일판매ㆍ공급계약체결</DOCUMENT-NAME>
<FORMULA-VERSION ADATE="20250101">5.6</FORMULA-VERSION>
<COMPANY-NAME AREGCIK="00126380">한빛전자</COMPANY-NAME>
<SUMMARY><EXTRACTION ACODE="COMPANY_NAME">요약값</EXTRACTION></SUMMARY>
<BODY>
<COVER><COVER-TITLE>단 일 판 매</COVER-TITLE>
<TABLE><TR><TD>작성책임자 :</TD><TD>(직책) 재무팀장</TD></TR></TABLE></COVER>
<SECTION-1 ACLASS="MANDATORY"><TITLE ATOC="Y">단일판매ㆍ공급계약 체결</TITLE>
<TABLE BORDER="1"><TBODY>
<TR><TH>구분</TH><TH>내용</TH></TR>
<TR><TD>계약금액(원)</TD><TE ALIGN="RIGHT">14,443,725,800</TE></TR>
<TR><TD>매출액대비(%)</TD><TE>13.21</TE><TU AUNIT="PCT">%</TU></TR>
</TBODY></TABLE>
<P>※ 계약금액은 부가가치세 별도 금액입니다.</P>
<SECTION-2><TITLE>2. 기타</TITLE><P>해당사항 없음</P></SECTION-2>
</SECTION-1>
</BODY>
</DOCUMENT>`;
    expect(markupToText(markup)).toBe(
      [
        '단일판매ㆍ공급계약체결',
        '한빛전자',
        '단일판매ㆍ공급계약 체결',
        '구분 | 내용',
        '계약금액(원) | 14,443,725,800',
        '매출액대비(%) | 13.21 | %',
        '※ 계약금액은 부가가치세 별도 금액입니다.',
        '2. 기타',
        '해당사항 없음',
      ].join('\n'),
    );
  });

  it("reads malformed markup without throwing: unclosed P and TD, mismatched case, stray & and unknown entities, DART's &cr; as a line break", () => {
    const markup = `<BODY><SECTION-1><title>1. 개요</TITLE>
<P>첫 문단은 닫히지 않는다
<P>R&D 투자와 M&A 계획 &amp; 일정 &cr;둘째 줄 &Cr; 셋째 줄 &unknown; 그대로
<table><tr><td>항목<td>값</tr><TR><Td>매출</tD><TE>1,000</te></TR></TABLE>
<p>소문자로 열고 대문자로 닫음</P>
</section-1>
<P>끝`;
    expect(markupToText(markup)).toBe(
      [
        '1. 개요',
        '첫 문단은 닫히지 않는다',
        'R&D 투자와 M&A 계획 & 일정',
        '둘째 줄',
        '셋째 줄 &unknown; 그대로',
        '항목 | 값',
        '매출 | 1,000',
        '소문자로 열고 대문자로 닫음',
        '끝',
      ].join('\n'),
    );
  });

  it('never throws on any prefix of a document, however the cut falls', () => {
    const markup =
      '<?xml version="1.0"?><DOCUMENT><BODY><COVER><P>표지</P></COVER><SECTION-1><TITLE>가&amp;나</TITLE><TABLE><TR><TD A="x>y">셀</TD></TR></TABLE><!-- 주석 --><![CDATA[원문]]><P>끝</P></SECTION-1></BODY></DOCUMENT>';
    for (let length = 0; length <= markup.length; length++) {
      expect(() => markupToText(markup.slice(0, length))).not.toThrow();
    }
    expect(markupToText(markup)).toBe('가&나\n셀\n원문\n끝');
  });

  it('drops the cover even when it is never closed: the first section ends it', () => {
    const markup =
      '<BODY><COVER><COVER-TITLE>사 업 보 고 서</COVER-TITLE><P>대표이사 : 김철수<SECTION-1><TITLE>I. 회사의 개요</TITLE><P>본문</P></SECTION-1></BODY>';
    expect(markupToText(markup)).toBe('I. 회사의 개요\n본문');
    // A cover title outside a cover is dropped too, and ends at the next block.
    expect(markupToText('<COVER-TITLE>표지 제목<P>본문</P>')).toBe('본문');
  });

  it('keeps tables readable: one row a line, empty cells dropped, blocks in a cell as spaces, nested tables in their cell', () => {
    const markup = `<TABLE>
<TR><TD>1. 계약내역</TD><TD></TD><TD>계약금액(원)</TD><TE>144,437,258,000</TE></TR>
<TR><TD><P>여러</P><P>문단</P><BR>셀</TD><TD>값</TD></TR>
<TR><TD>내부표</TD><TD><TABLE><TR><TD>가</TD><TD>1</TD></TR><TR><TD>나</TD><TD>2</TD></TR></TABLE></TD></TR>
<TR><TD> </TD><TD></TD></TR>
</TABLE>
<TD>행 없는 셀</TD><TD>둘째</TD><P>다음 문단</P>`;
    expect(markupToText(markup)).toBe(
      [
        '1. 계약내역 | 계약금액(원) | 144,437,258,000',
        '여러 문단 셀 | 값',
        '내부표 | 가 | 1 나 | 2',
        '행 없는 셀 | 둘째',
        '다음 문단',
      ].join('\n'),
    );
  });

  it('decodes entities: named (HTML set), numeric and hexadecimal', () => {
    expect(markupToText('<P>A&amp;B &lt;주&gt; &quot;인용&quot; &apos;x&apos; &#44032;&#xAC01; 1&nbsp;000&nbsp;원 &middot;</P>')).toBe(
      'A&B <주> "인용" \'x\' 가각 1 000 원 ·',
    );
  });

  it('turns every form of BR into a line break, and a space inside a cell', () => {
    expect(markupToText('<P>첫째<BR>둘째<BR/>셋째<br></br>넷째</P>')).toBe('첫째\n둘째\n셋째\n넷째');
    expect(markupToText('<TABLE><TR><TD>위<BR>아래</TD><TD>옆</TD></TR></TABLE>')).toBe('위 아래 | 옆');
  });

  it('collapses whitespace of every kind, trims lines and drops empty ones', () => {
    const markup = '<P>  여러\n\t 줄에\u00a0걸친\u3000문장  </P>\n\n<P>   </P><P>\u200b</P><P>다음</P>\n   \n';
    expect(markupToText(markup)).toBe('여러 줄에 걸친 문장\n다음');
  });

  it('keeps a < that cannot start a tag as text, and drops comments and processing instructions', () => {
    expect(markupToText('<P>영업이익 < 0 이면 <주석> 참조</P><!-- <P>숨김</P> --><?xml-stylesheet href="x"?>')).toBe(
      '영업이익 < 0 이면 <주석> 참조',
    );
  });

  it('reads HTML attachments: head, style and script dropped', () => {
    const html =
      '<html><head><title>문서</title><style>p { color: red }</style></head><body><script>var x = 1;</script><h1>제목</h1><div>본문</div></body></html>';
    expect(markupToText(html)).toBe('제목\n본문');
  });
});

describe('parseDartDocument', () => {
  const markup = `<?xml version="1.0" encoding="utf-8"?>
<DOCUMENT><DOCUMENT-NAME ACODE="00760">감사보고서</DOCUMENT-NAME><COMPANY-NAME AREGCIK="01">가나다</COMPANY-NAME>
<SUMMARY><EXTRACTION ACODE="SUPV_OPIN" AFEATURE="BOTH">411000000000</EXTRACTION><EXTRACTION ACODE="TOT_SALES">0</EXTRACTION></SUMMARY>
<BODY><COVER><P>삼일회계법인</P>
<TABLE ACLASS="EXTRACTION"><TR><TU AUNIT="PERIODFROM" AUNITVALUE="20250101">2025년 01월 01일</TU><TD>부터</TD></TR></TABLE></COVER>
<LIBRARY><SECTION-1><TITLE>독립된 감사인의 감사보고서</TITLE><P>의견거절</P></SECTION-1>
<SECTION-1><TITLE>(첨부)재무제표</TITLE>
<TABLE-GROUP ACLASS="PIS-2:A"><TITLE>손 익 계 산 서</TITLE>
<TABLE><THEAD><TR><TH>과 목</TH><TH COLSPAN="2">제 5(당) 기</TH></TR></THEAD>
<TBODY><TR><TE ACODE="12100000010000" ADELIM="0">Ⅰ.매출액</TE><TE ADELIM="1"></TE><TE ADELIM="2">1,000</TE></TR></TBODY></TABLE></TABLE-GROUP>
<SECTION-2><TITLE>주석</TITLE><P>1. 일반사항&cr;회사는 …</P></SECTION-2>
</SECTION-1></LIBRARY></BODY></DOCUMENT>`;

  it('keeps the header, the SUMMARY values and the cover apart from the text', () => {
    const document = parseDartDocument(markup);
    expect(document).toMatchObject({ name: '감사보고서', formCode: '00760', company: '가나다' });
    expect([...document.extractions]).toEqual([
      ['SUPV_OPIN', '411000000000'],
      ['TOT_SALES', '0'],
    ]);
    expect(document.coverLines).toEqual(['삼일회계법인', '2025년 01월 01일 | 부터']);
    expect(documentText(document)).not.toContain('삼일회계법인');
    expect(documentText(document)).not.toContain('411000000000');
  });

  it('records sections with their titles, nesting and lines', () => {
    const document = parseDartDocument(markup);
    expect(document.sections.map(({ level, title, parent }) => ({ level, title, parent }))).toEqual([
      { level: 1, title: '독립된 감사인의 감사보고서', parent: -1 },
      { level: 1, title: '(첨부)재무제표', parent: -1 },
      { level: 2, title: '주석', parent: 1 },
    ]);
    const [report, statements, notes] = document.sections;
    expect(linesText(document, report.firstLine, report.endLine)).toBe('독립된 감사인의 감사보고서\n의견거절');
    // A statement's title inside its table group is no section title.
    expect(linesText(document, notes.firstLine, notes.endLine)).toBe('주석\n1. 일반사항\n회사는 …');
    expect(statements.firstLine).toBeLessThan(notes.firstLine);
    expect(statements.endLine).toBe(notes.endLine);
  });

  it('keeps every cell of a table in place, with its spans, tags and group, and the line before it as caption', () => {
    const document = parseDartDocument(markup);
    const statement = document.tables.find((table) => table.group === 'PIS-2:A')!;
    expect(statement).toMatchObject({ cover: false, caption: '손 익 계 산 서', section: 1 });
    expect(statement.rows[0]).toMatchObject({
      head: true,
      cells: [
        { text: '과 목', tag: 'th' },
        { text: '제 5(당) 기', colSpan: 2 },
      ],
    });
    // The empty sub-total cell stays: the amount is under the second column of its period.
    expect(statement.rows[1].cells.map((cell) => [cell.text, cell.tag, cell.acode, cell.adelim])).toEqual([
      ['Ⅰ.매출액', 'te', '12100000010000', 0],
      ['', 'te', undefined, 1],
      ['1,000', 'te', undefined, 2],
    ]);
    expect(document.lines.slice(statement.firstLine, statement.endLine).map((line) => line.text)).toEqual([
      '과 목 | 제 5(당) 기',
      'Ⅰ.매출액 | 1,000',
    ]);
    const cover = document.tables.find((table) => table.cover)!;
    expect(cover.rows[0].cells[0]).toMatchObject({ tag: 'tu', aunit: 'PERIODFROM', aunitValue: '20250101' });
  });

  it("marks the exchange forms' input fields, and never lets an unclosed title swallow its section", () => {
    const document = parseDartDocument(
      '<table><tr><td><span>계약금액(원)</span></td><td><span class="xforms_input">1,000</span></td></tr></table><SECTION-1><TITLE>1. 개요<P>본문</P></SECTION-1>',
    );
    expect(document.tables[0].rows[0].cells.map((cell) => cell.input)).toEqual([false, true]);
    expect(document.sections[0].title).toBe('1. 개요');
    expect(documentText(document)).toBe('계약금액(원) | 1,000\n1. 개요\n본문');
  });
});
