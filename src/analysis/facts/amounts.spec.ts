import { changePercent, declaredUnit, formatValue, formatWon, labelUnit, parseAmount, toWon } from './amounts';

describe('amounts as Korean filings write them', () => {
  it.each([
    ['1,234', 1234],
    ['22,764,764,160,000', 22_764_764_160_000],
    ['7.6', 7.6],
    ['(1,129,681,376)', -1_129_681_376],
    ['△10,234', -10_234],
    ['-1,791,961', -1_791_961],
    ['+24.1', 24.1],
    ['  5,000  ', 5000],
    // Old statements underline totals.
    ['14,785,857,426=============', 14_785_857_426],
    ['16,507,429,508 ===============', 16_507_429_508],
  ])('reads %j as %d', (text, value) => {
    expect(parseAmount(text)).toBe(value);
  });

  it.each(['-', '', '5,6,26,28', '4,26', '233개', '2025-07-24', '(1,234', '1,234)', '1,23', '제55기', '적자전환'])(
    'reads %j as no amount',
    (text) => {
      expect(parseAmount(text)).toBeNull();
    },
  );

  it('reads the unit a table or a label declares, and only a unit', () => {
    expect(declaredUnit('(단위 : 백만원)')).toBe('백만원');
    expect(declaredUnit('단위 : 조원, %')).toBe('조원');
    expect(declaredUnit('[단위:천원]')).toBe('천원');
    expect(declaredUnit("- 상기 금액은 '원'단위임")).toBeNull();
    expect(declaredUnit('(단위 : 명, 시간)')).toBe('명');
    expect(labelUnit('계약금액(원)')).toBe('원');
    expect(labelUnit('교환가액 (원/주)')).toBe('원/주');
    expect(labelUnit('매출액대비(%)')).toBe('%');
    expect(labelUnit('2. 계약내역')).toBeNull();
  });

  it('writes won the way Korean readers count', () => {
    expect(formatWon(52_000_000_000)).toBe('520억원');
    expect(formatWon(1_234_567_000_000)).toBe('1조 2,346억원');
    expect(formatWon(2_000_000_000_000)).toBe('2조원');
    // 1조 9,999.6억 rounds to 2조, never "1조 10,000억".
    expect(formatWon(1_999_960_000_000)).toBe('2조원');
    expect(formatWon(-3_041_861_373)).toBe('-30억원');
    expect(formatWon(35_000_000)).toBe('3,500만원');
    expect(formatWon(8_000)).toBe('8,000원');
    expect(formatValue(258_935_494, '백만원')).toBe('258조 9,355억원');
    expect(formatValue(171.5, '조원')).toBe('171조 5,000억원');
    expect(formatValue(7.6, '%')).toBe('7.6%');
    expect(formatValue(2_347_500, '주')).toBe('2,347,500주');
    expect(toWon(3, '억원')).toBe(300_000_000);
    expect(toWon(3, '주')).toBeNull();
  });

  it('gives a change in percent only between two positive amounts', () => {
    expect(changePercent(258_935_494, 302_231_360)).toBe(-14.3);
    expect(changePercent(110, 100)).toBe(10);
    expect(changePercent(-5, 10)).toBeNull();
    expect(changePercent(-5, -10)).toBeNull();
    expect(changePercent(5, 0)).toBeNull();
  });
});
