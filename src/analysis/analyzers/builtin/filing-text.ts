// Reading a filing's plain text without a model: segments (sentences and table
// rows) and the figures in them. Filings mix prose with tables; the document
// text renders a table row as one line whose cells are separated by tabs, pipes
// or runs of spaces, so both shapes are handled.

/** A sentence of prose or one table row, in document order. */
export interface Segment {
  index: number;
  /** Cells of a table row; a sentence is one cell. */
  cells: string[];
  text: string;
  isTableRow: boolean;
}

/** A number with its unit, as the filing gives it. */
export interface Figure {
  /** What the number is, from the words before it or the row's label cells. */
  label: string;
  /** The most specific part of the label, for the headline. */
  shortLabel: string;
  value: number;
  unit: string;
  segment: number;
  /** From a table row (a form's field), not from a sentence. */
  inTable: boolean;
}

const CELL_SEPARATOR = /\t+|\s*[|│]\s*|\s{3,}/;
/** A sentence ends at . ? ! followed by space, except after a digit (1. 2.5 2025. 3.). */
const SENTENCE_END = /(?<=[^\d\s][.?!。])\s+/;

export function splitSegments(text: string): Segment[] {
  const segments: Segment[] = [];
  const lines = text
    .replace(/\r\n?/g, '\n')
    .replace(/[\u00a0\u3000]/g, ' ')
    .split('\n');
  for (const rawLine of lines) {
    const cells = rawLine
      .replace(/^\s*[-•·○◦▶]\s+/, '')
      .split(CELL_SEPARATOR)
      .map((cell) => cell.replace(/\s+/g, ' ').trim())
      .filter((cell) => cell !== '' && cell !== '-');
    if (cells.length === 0) continue;
    if (cells.length > 1) {
      segments.push({ index: segments.length, cells, text: cells.join(' | '), isTableRow: true });
      continue;
    }
    for (const sentence of cells[0].split(SENTENCE_END)) {
      const trimmed = sentence.trim();
      if (trimmed !== '') segments.push({ index: segments.length, cells: [trimmed], text: trimmed, isTableRow: false });
    }
  }
  return segments;
}

/** Money units and what turns them into won. */
const MONEY_MULTIPLIERS: Readonly<Record<string, number>> = {
  조원: 1e12,
  억원: 1e8,
  천만원: 1e7,
  백만원: 1e6,
  만원: 1e4,
  천원: 1e3,
  원: 1,
};
/** Units written after numbers; longer spellings first so 억원 is not read as 원. */
const UNITS = ['조원', '억원', '천만원', '백만원', '만원', '천원', '원', '만주', '천주', '주', '%', '배'];
const UNIT_PATTERN = UNITS.map((unit) => unit.split('').join('\\s?')).join('|');

const NUMBER = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`;
// △ marks a negative number in Korean filings.
const SIGNED_NUMBER = String.raw`([△-]?)(${NUMBER})`;
/** Words that continue a unit into another word: 1주당, 주식, 원인, 원자재… */
const NOT_A_UNIT_END = '(?![당식주가권요간택소차관석인자화칙래본료장활])';
/** 1조 2,345억원 */
const COMPOUND_AMOUNT = new RegExp(String.raw`(?<![\w.,])(\d[\d,]*)\s?조\s?(\d[\d,]*)\s?억\s?원${NOT_A_UNIT_END}`, 'g');
const INLINE_FIGURE = new RegExp(String.raw`(?<![\w.,])${SIGNED_NUMBER}\s?(${UNIT_PATTERN})${NOT_A_UNIT_END}`, 'g');
const NUMERIC_CELL = new RegExp(String.raw`^${SIGNED_NUMBER}$`);
const CELL_UNIT = /\((?:단위\s*[:：]?\s*)?(조원|억원|백만원|천원|원|주|%|배)\)/;
const TABLE_UNIT = /단위\s*[:：]?\s*(조원|억원|백만원|천원|원|주|%)/;

/** Words naming a change or a share of something named before. */
const COMPARISON_WORDS = /대비|증감|비율|증가|감소|변동/;

/** Line items of financial tables, whose rows carry no unit of their own. */
const TABLE_METRICS = ['매출액', '영업이익', '영업손실', '당기순이익', '당기순손실', '법인세비용차감전', '자산총계', '부채총계', '자본총계', '배당금'];

function toNumber(sign: string, digits: string): number {
  const value = Number(digits.replace(/,/g, ''));
  return sign === '' ? value : -value;
}

function normaliseUnit(unit: string): string {
  return unit.replace(/\s/g, '');
}

/** True when a Hangul syllable ends in a consonant (익, 액), which decides between the particles 이 and 가. */
function hasFinalConsonant(syllable: string): boolean {
  const code = syllable.charCodeAt(0) - 0xac00;
  return code >= 0 && code < 11172 && code % 28 !== 0;
}

/** Particles and numbering at the edges of a label: "1. 매출액은" → "매출액". */
function cleanLabel(label: string): string {
  let cleaned = label
    .replace(/\([^)]*\)/g, ' ')
    .replace(/^\s*(?:\d+|[가-하]|[①-⑳])[.)]\s*/, '')
    .replace(/^(?:으로|로|은|는|이|가|을|를|및|와|과|에|이며|이고|하여)\s+/, '')
    .replace(/[\s:·,]+$/, '')
    .replace(/\s+/g, ' ')
    .trim();
  const particle = /(은|는|을|를|으로|에서|에는|이|가)$/.exec(cleaned);
  const lastWord = cleaned.slice(cleaned.lastIndexOf(' ') + 1);
  if (particle && lastWord.length > 2) {
    const stem = cleaned.slice(0, -particle[1].length);
    const previous = stem.slice(-1);
    // 이 follows a final consonant (영업이익이), 가 a vowel (주식수가); 평가, 단가 stay whole.
    const fits = particle[1] === '이' ? hasFinalConsonant(previous) : particle[1] === '가' ? !hasFinalConsonant(previous) : true;
    if (fits) cleaned = stem;
  }
  return cleaned;
}

function limitLabel(label: string, maxChars = 40): string {
  if (label.length <= maxChars) return label;
  const words = label.split(' ');
  while (words.length > 1 && words.join(' ').length > maxChars) words.shift();
  return words.join(' ').slice(-maxChars);
}

/** Every figure of the text, in document order, each once. */
export function extractFigures(segments: readonly Segment[]): Figure[] {
  const figures: Figure[] = [];
  const seen = new Set<string>();
  const add = (figure: Figure): void => {
    if (figure.label === '' || !Number.isFinite(figure.value)) return;
    const key = `${figure.label}|${figure.value}|${figure.unit}`;
    if (seen.has(key)) return;
    seen.add(key);
    figures.push(figure);
  };

  let tableUnit: string | null = null;
  for (const segment of segments) {
    const declared = TABLE_UNIT.exec(segment.text);
    if (declared) tableUnit = declared[1];
    if (segment.isTableRow) figuresOfRow(segment, tableUnit).forEach(add);
    else figuresOfProse(segment).forEach(add);
  }
  return figures;
}

/** A row: the label cells before the first number name it, a "(원)" in them or the table's unit gives the unit. */
function figuresOfRow(segment: Segment, tableUnit: string | null): Figure[] {
  const labelCells: string[] = [];
  let unit: string | null = null;
  for (const cell of segment.cells) {
    const numeric = NUMERIC_CELL.exec(cell);
    if (!numeric) {
      const cellUnit = CELL_UNIT.exec(cell);
      if (cellUnit) unit = cellUnit[1];
      labelCells.push(cell);
      continue;
    }
    const parts = labelCells.map(cleanLabel).filter((part) => part !== '');
    const label = limitLabel(parts.join(' '));
    const isMetric = TABLE_METRICS.some((metric) => label.includes(metric));
    const rowUnit = unit ?? (isMetric ? tableUnit : null);
    if (rowUnit === null || label === '') return figuresOfProse(segment);
    return [
      {
        label,
        shortLabel: parts[parts.length - 1] ?? label,
        value: toNumber(numeric[1], numeric[2]),
        unit: rowUnit,
        segment: segment.index,
        inTable: true,
      },
    ];
  }
  return figuresOfProse(segment);
}

/** Prose: numbers written with their unit; the words before one (back to a comma or another figure) name it. */
function figuresOfProse(segment: Segment): Figure[] {
  const text = segment.text;
  const found: { start: number; end: number; value: number; unit: string }[] = [];
  for (const match of text.matchAll(COMPOUND_AMOUNT)) {
    const value = Number(match[1].replace(/,/g, '')) * 10_000 + Number(match[2].replace(/,/g, ''));
    found.push({ start: match.index, end: match.index + match[0].length, value, unit: '억원' });
  }
  for (const match of text.matchAll(INLINE_FIGURE)) {
    const start = match.index;
    if (found.some((taken) => start < taken.end && start + match[0].length > taken.start)) continue;
    found.push({ start, end: start + match[0].length, value: toNumber(match[1], match[2]), unit: normaliseUnit(match[3]) });
  }
  found.sort((a, b) => a.start - b.start);

  const figures: Figure[] = [];
  let clauseStart = 0;
  let subject = '';
  for (const figure of found) {
    const before = text.slice(clauseStart, figure.start);
    const boundary = Math.max(before.lastIndexOf(','), before.lastIndexOf('|'), before.lastIndexOf(';'));
    const context = cleanLabel(boundary >= 0 ? before.slice(boundary + 1) : before);
    const words = context.split(' ').filter((word) => word !== '');
    const own = limitLabel(words.slice(-4).join(' '), 30);
    // 매출액은 1조원으로 전년 대비 15% 증가: the 15% is 매출액's change.
    const comparison = own === '' || COMPARISON_WORDS.test(own);
    const label = comparison && subject !== '' && !own.includes(subject) ? `${subject} ${own}`.trim() : own;
    if (!comparison) subject = words[words.length - 1] ?? '';
    if (label !== '') {
      figures.push({
        label: limitLabel(label),
        shortLabel: own || label,
        value: figure.value,
        unit: figure.unit,
        segment: segment.index,
        inTable: false,
      });
    }
    clauseStart = figure.end;
  }
  return figures;
}

/** Won in the units Koreans read: 45000000000 → 450억원, 1234500000000 → 1조 2,345억원. */
export function formatWon(won: number): string {
  const sign = won < 0 ? '-' : '';
  const amount = Math.abs(won);
  if (amount >= 1e12) {
    const jo = Math.floor(amount / 1e12);
    const eok = Math.round((amount - jo * 1e12) / 1e8);
    return `${sign}${jo.toLocaleString('en-US')}조${eok > 0 ? ` ${eok.toLocaleString('en-US')}억` : ''}원`;
  }
  if (amount >= 1e8) return `${sign}${Math.round(amount / 1e8).toLocaleString('en-US')}억원`;
  if (amount >= 1e4) return `${sign}${Math.round(amount / 1e4).toLocaleString('en-US')}만원`;
  return `${sign}${amount.toLocaleString('en-US')}원`;
}

/** A figure as a reader wants it: money in 억/조, other numbers with separators and their unit. */
export function formatFigure(figure: Pick<Figure, 'value' | 'unit'>): string {
  const won = toWon(figure);
  if (won !== null) return formatWon(won);
  return `${figure.value.toLocaleString('en-US', { maximumFractionDigits: 2 })}${figure.unit}`;
}

/** A money figure in won; null for counts, percentages and ratios. */
export function toWon(figure: Pick<Figure, 'value' | 'unit'>): number | null {
  const multiplier = MONEY_MULTIPLIERS[figure.unit];
  return multiplier === undefined ? null : figure.value * multiplier;
}

/** A table row as a readable line: "시설자금 (원) | 30,000,000,000" → "시설자금: 300억원". */
export function renderSegment(segment: Segment, figure: Figure | undefined): string {
  if (!segment.isTableRow) return segment.text;
  if (figure) {
    const numbers = segment.cells.filter((cell) => NUMERIC_CELL.test(cell));
    // Several columns (this period, last period, change): shown as written, with the table's unit.
    return numbers.length > 1
      ? `${figure.label}: ${numbers.slice(0, 4).join(' / ')} (단위: ${figure.unit})`
      : `${figure.label}: ${formatFigure(figure)}`;
  }
  const [head, ...rest] = segment.cells.map(cleanLabel).filter((cell) => cell !== '');
  return rest.length > 0 ? `${head}: ${rest.join(', ')}` : (head ?? segment.text);
}

/** Cuts at a word boundary and marks the cut. */
export function cutAtWord(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const slice = text.slice(0, maxChars - 1);
  const space = slice.lastIndexOf(' ');
  return `${(space > maxChars / 2 ? slice.slice(0, space) : slice).replace(/[\s,.:·]+$/, '')}…`;
}
