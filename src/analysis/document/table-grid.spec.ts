import { parseDartDocument } from './dart-document';
import { tableGrid } from './table-grid';

function grid(markup: string): string[][] {
  const { rows } = tableGrid(parseDartDocument(markup).tables[0]);
  return rows.map((row) => row.slots.map((slot) => (slot === undefined ? '·' : `${slot.cell.text}${slot.top && slot.left ? '' : '*'}`)));
}

describe('tableGrid', () => {
  it('places cells as a browser does: spans fill the positions to the right and below', () => {
    const markup = `<TABLE>
<TR><TD ROWSPAN="3">2. 계약내역</TD><TD>계약금액(원)</TD><TD>1,000</TD></TR>
<TR><TD>최근매출액(원)</TD><TD>5,000</TD></TR>
<TR><TD>매출액대비(%)</TD><TD>20</TD></TR>
<TR><TD COLSPAN="2">3. 계약상대</TD><TD>가나다</TD></TR></TABLE>`;
    expect(grid(markup)).toEqual([
      ['2. 계약내역', '계약금액(원)', '1,000'],
      ['2. 계약내역*', '최근매출액(원)', '5,000'],
      ['2. 계약내역*', '매출액대비(%)', '20'],
      ['3. 계약상대', '3. 계약상대*', '가나다'],
    ]);
  });

  it('keeps an empty cell in place, so a value stays under its header; a row short of cells leaves holes', () => {
    const markup = `<TABLE><TR><TH>과 목</TH><TH>주석</TH><TH>당기</TH><TH>전기</TH></TR>
<TR><TD>매출총이익</TD><TD></TD><TD>671</TD><TD>106</TD></TR><TR><TD>소계</TD><TD>1</TD></TR></TABLE>`;
    expect(grid(markup)).toEqual([
      ['과 목', '주석', '당기', '전기'],
      ['매출총이익', '', '671', '106'],
      ['소계', '1', '·', '·'],
    ]);
  });

  it('survives spans that run past the table', () => {
    expect(grid('<TABLE><TR><TD ROWSPAN="99" COLSPAN="2">a</TD><TD>b</TD></TR><TR><TD>c</TD></TR></TABLE>')).toEqual([
      ['a', 'a*', 'b'],
      ['a*', 'a*', 'c'],
    ]);
  });
});
