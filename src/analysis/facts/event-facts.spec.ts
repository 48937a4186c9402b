import { realDocument } from '../../../test/support/real-filings';
import { readFilingFacts } from './filing-facts';
import type { EventFact } from './filing-facts.types';

function eventOf(file: string, reportName: string) {
  return readFilingFacts(realDocument(file), reportName);
}

/** The facts as "name: value unit" lines, the way a reader would check them against the form. */
function lines(facts: readonly EventFact[]): string[] {
  return facts.map((fact) => `${fact.role} ${fact.name}: ${fact.value}${fact.unit === null ? '' : ` ${fact.unit}`}`);
}

describe('the decisions of real event forms', () => {
  it("a supply contract in the exchange's HTML form: amount, share of revenue, counterparty, period", () => {
    const facts = eventOf('20250728800035.supply-contract-exchange-form.xml', '단일판매ㆍ공급계약체결');
    expect(facts).toMatchObject({ family: 'event', eventKind: 'supply_contract', corrected: false });
    expect(lines(facts.event)).toEqual([
      'subject 계약명: 반도체 위탁생산 공급계약',
      'amount 계약금액: 22764764160000 원',
      'ratio 매출액 대비: 7.6 %',
      'counterparty 계약상대: 글로벌 대형기업',
      'start 계약 시작일: 2025-07-24',
      'end 계약 종료일: 2033-12-31',
    ]);
  });

  it('a correction: the values after the correction, not the 정정전 column', () => {
    const facts = eventOf('20250731800028.supply-contract-correction.xml', '[기재정정]단일판매ㆍ공급계약체결');
    expect(facts.corrected).toBe(true);
    expect(facts.event.find((fact) => fact.role === 'counterparty')?.value).toBe('테슬라(Tesla, Inc.)');
    expect(facts.event.find((fact) => fact.role === 'amount')?.value).toBe(22_764_764_160_000);
  });

  it('a termination: the amount terminated and the date', () => {
    const facts = eventOf('20251217800800.supply-contract-termination.xml', '단일판매ㆍ공급계약해지');
    expect(facts.eventKind).toBe('contract_termination');
    expect(lines(facts.event)).toEqual(
      expect.arrayContaining([
        'amount 해지금액: 9603075000000 원',
        'ratio 매출액 대비: 28.5 %',
        'counterparty 계약상대: Ford Motor Company',
        'date 해지일자: 2025-12-17',
      ]),
    );
  });

  it('a treasury share purchase in DART\'s tagged form: common shares and amount, not the other kind\'s "-"', () => {
    const facts = eventOf('20240930000001.buyback.xml', '주요사항보고서(자기주식취득결정)');
    expect(lines(facts.event)).toEqual([
      'shares 취득예정주식(보통주): 2347500 주',
      'amount 취득예정금액(보통주): 401187750000 원',
      'method 취득방법: 장내매수',
      'purpose 취득목적: 이익소각',
      'start 취득 시작일: 2024-10-02',
      'end 취득 종료일: 2024-12-28',
    ]);
  });

  it('a capital reduction', () => {
    const facts = eventOf('20260211001067.capital-reduction.xml', '주요사항보고서(감자결정)');
    expect(facts.eventKind).toBe('capital_reduction');
    expect(lines(facts.event).slice(0, 2)).toEqual(['shares 감자주식(보통주): 1420723 주', 'ratio 감자비율(보통주): 0.32 %']);
  });

  it('a share issue: new shares, price, every purpose with its amount, and the shares before (a raw & in the text is no problem)', () => {
    const facts = eventOf('20230830001131.share-issue.xml', '주요사항보고서(유상증자결정)');
    expect(lines(facts.event)).toEqual([
      'shares 신주(보통주): 1045430 주',
      'price 발행가액(보통주): 504333 원',
      'amount 타법인증권취득자금: 527244848190 원',
      'method 증자방식: 제3자배정증자',
      'shares 증자전 발행주식총수(보통주): 19863158 주',
      'date 납입일: 2023-09-12',
    ]);
  });

  it('an exchangeable bond: face amount in won (not the dollar amount), exchange price, shares and their share', () => {
    const facts = eventOf('20230403003950.exchangeable-bond.xml', '주요사항보고서(교환사채권발행결정)');
    expect(lines(facts.event)).toEqual([
      'amount 권면총액: 1974450000000 원',
      'price 교환가액: 111180 원',
      'shares 발행할 주식수: 17759040 주',
      'ratio 주식총수 대비: 2.4 %',
      'method 발행방법: 사모',
      'end 사채만기일: 2030-04-11',
    ]);
  });

  it('a corrected business acquisition with a CORRECTION table first', () => {
    const facts = eventOf('20250317000576.business-acquisition-correction.xml', '[기재정정]주요사항보고서(영업양수결정)');
    expect(facts).toMatchObject({ eventKind: 'acquisition', corrected: true });
    expect(lines(facts.event)).toEqual(
      expect.arrayContaining(['amount 취득금액: 10310400000000 원', 'counterparty 대상: Intel Corporation']),
    );
  });

  it('a cash dividend: per share, yield, total, record date', () => {
    const facts = eventOf('20260430800106.dividend.xml', '현금ㆍ현물배당결정');
    expect(lines(facts.event)).toEqual([
      'subject 배당구분: 분기배당',
      'price 1주당 배당금(보통주): 372 원',
      'yield 시가배당률(보통주): 0.2 %',
      'amount 배당금총액: 2453315636604 원',
      'date 배당기준일: 2026-03-31',
    ]);
  });

  it('a dissolution: its cause and date', () => {
    const facts = eventOf('20250210-dissolution.dartfragment.xml', '주요사항보고서(해산사유발생)');
    expect(facts.eventKind).toBe('dissolution');
    expect(lines(facts.event)[0]).toMatch(/^subject 해산사유: 당사의 주권이 2025년 2월 10일 부로 코스닥시장 상장규정/);
  });
});

describe('preliminary earnings releases', () => {
  it('reads the quarter (당해실적) against the same quarter a year earlier, with the periods the form states, in 조원', () => {
    const facts = eventOf('20260730800123.earnings-correction-trillion-won.xml', '[기재정정]연결재무제표기준영업(잠정)실적(공정공시)');
    expect(facts).toMatchObject({
      family: 'event',
      eventKind: 'earnings',
      corrected: true,
      period: { from: '2026-04-01', to: '2026-06-30' },
    });
    expect(
      facts.financials.map((fact) => `${fact.item} ${fact.term} ${fact.value} ${fact.unit} ${fact.period.from}~${fact.period.to}`),
    ).toEqual([
      'revenue current 171.5 조원 2026-04-01~2026-06-30',
      'revenue prior 74.57 조원 2025-04-01~2025-06-30',
      'operating_profit current 89.49 조원 2026-04-01~2026-06-30',
      'operating_profit prior 4.68 조원 2025-04-01~2025-06-30',
    ]);
    expect(facts.financials.every((fact) => fact.consolidated)).toBe(true);
    // The form's own rate against the same quarter a year earlier, from its unrounded figures.
    expect(facts.financials.filter((fact) => fact.statedChange !== undefined).map((fact) => [fact.item, fact.statedChange])).toEqual([
      ['revenue', 130],
      ['operating_profit', 1813.83],
    ]);
  });

  it('reads losses written with a minus, and the quarter from a header "(2023년 3분기)"', () => {
    const facts = eventOf('skhynix-2023q3.earnings-loss.xml', '연결재무제표기준영업(잠정)실적(공정공시)');
    expect(facts.period).toEqual({ from: '2023-07-01', to: '2023-09-30' });
    const of = (item: string, term: string) => facts.financials.find((fact) => fact.item === item && fact.term === term)?.value;
    expect([
      of('revenue', 'current'),
      of('operating_profit', 'current'),
      of('operating_profit', 'prior'),
      of('net_profit', 'current'),
    ]).toEqual([9_066_171, -1_791_961, 1_660_523, -2_184_699]);
    expect(facts.financials[0].unit).toBe('백만원');
  });
});
