// Numbers as Korean filings write them, and money as Korean readers count it.

/** Money units a table or a label states, and what turns each into won. */
const MONEY_UNITS: Readonly<Record<string, number>> = {
  원: 1,
  천원: 1e3,
  만원: 1e4,
  백만원: 1e6,
  천만원: 1e7,
  억원: 1e8,
  십억원: 1e9,
  조원: 1e12,
};

export type MoneyUnit = keyof typeof MONEY_UNITS & string;

export function isMoneyUnit(unit: string | null | undefined): unit is MoneyUnit {
  return unit !== null && unit !== undefined && Object.hasOwn(MONEY_UNITS, unit);
}

/** A money amount in won; null for a unit that is not money. */
export function toWon(value: number, unit: string): number | null {
  return isMoneyUnit(unit) ? value * MONEY_UNITS[unit] : null;
}

/**
 * An amount cell: "1,234", "1234.5", "+24.1", and the three ways of writing a negative number
 * ("(1,234)", "△1,234", "-1,234"). Null for anything else: "-" and empty cells (nothing), note references
 * ("5,6,26"), words, numbers with a unit or a count word ("233개"), dates.
 */
export function parseAmount(text: string): number | null {
  // Old statements underline totals with a run of = or -: "14,785,857,426 =============".
  const bare = text.replace(/[=＝]{2,}|-{3,}|_{2,}/g, '').trim();
  const match = /^(\(\s*)?([△-]\s*|\+\s*)?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(\s*\))?$/.exec(bare);
  if (match === null) return null;
  const [, open, minus, digits, fraction, close] = match;
  // "(1,234" or "1,234)" is not a number.
  if ((open === undefined) !== (close === undefined)) return null;
  const value = Number(digits.replace(/,/g, '') + (fraction ?? ''));
  if (!Number.isFinite(value)) return null;
  return open !== undefined || (minus !== undefined && !minus.startsWith('+')) ? -value : value;
}

/** Units a "단위" declaration names; anything else after the word is not a declaration ("'원'단위임"). */
const DECLARED_UNITS = new Set([
  '원',
  '천원',
  '만원',
  '백만원',
  '천만원',
  '억원',
  '십억원',
  '조원',
  '주',
  '천주',
  '%',
  'USD',
  'US$',
  '달러',
  '엔',
  '위안',
  '유로',
  '명',
]);

/**
 * The unit a text declares: "(단위 : 백만원)", "단위: 원", "(단위 : 백만원, %)" (the first unit is the
 * amounts'), "[단위: 천원]". Null when it declares none.
 */
export function declaredUnit(text: string): string | null {
  const match = /단\s*위\s*[:：]?\s*([^\s,)\]]+)/.exec(text);
  if (match === null) return null;
  const unit = match[1].replace(/\s/g, '');
  return DECLARED_UNITS.has(unit) ? unit : null;
}

/** The unit a label carries: "계약금액(원)", "전환가액(원/주)", "매출액대비(%)", "신주의 수(주)". */
export function labelUnit(label: string): string | null {
  const match = /\(\s*(원|천원|백만원|억원|조원|주|%|원\/주|USD|US\$|달러|엔|유로|배|명|개)\s*\)/.exec(label);
  return match === null ? null : match[1];
}

/** Won in the units Koreans read: 45000000000 → 450억원, 1234500000000 → 1조 2,345억원, negative with a minus. */
export function formatWon(won: number): string {
  const sign = won < 0 ? '-' : '';
  const amount = Math.abs(won);
  if (amount >= 1e12) {
    const jo = Math.floor(amount / 1e12);
    const eok = Math.round((amount - jo * 1e12) / 1e8);
    // 1조 9,999.6억 rounds to 2조, not 1조 10,000억.
    if (eok >= 10_000) return `${sign}${(jo + 1).toLocaleString('en-US')}조원`;
    return `${sign}${jo.toLocaleString('en-US')}조${eok > 0 ? ` ${eok.toLocaleString('en-US')}억` : ''}원`;
  }
  if (amount >= 1e8) return `${sign}${Math.round(amount / 1e8).toLocaleString('en-US')}억원`;
  if (amount >= 1e4) return `${sign}${Math.round(amount / 1e4).toLocaleString('en-US')}만원`;
  return `${sign}${amount.toLocaleString('en-US')}원`;
}

/** A value with its unit as a reader wants it: money in 조/억/만원, other units with separators. */
export function formatValue(value: number, unit: string | null): string {
  const won = unit === null ? null : toWon(value, unit);
  if (won !== null) return formatWon(won);
  const number = value.toLocaleString('en-US', { maximumFractionDigits: 2 });
  if (unit === null) return number;
  return unit === '%' ? `${number}%` : `${number}${unit}`;
}

/**
 * Change from `prior` to `current` in percent, one decimal. Null unless both are positive: a change
 * of a loss, or across zero, is said in words (흑자전환, 적자전환, 적자지속), not as a percentage.
 */
export function changePercent(current: number, prior: number): number | null {
  if (current <= 0 || prior <= 0) return null;
  return Math.round(((current - prior) / Math.abs(prior)) * 1000) / 10;
}
