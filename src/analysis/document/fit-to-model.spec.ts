import { MAX_MODEL_CHARS, OMISSION_MARKER, fitToModel } from './fit-to-model';

/** Numbered lines of varied length, so every line of the input can be recognised in the output. */
function numberedLines(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${i + 1}번째 줄: ${'매출액 1,234억원 '.repeat(1 + (i % 7))}`.trim());
}

describe('fitToModel', () => {
  it('returns text within the limit untouched', () => {
    const text = numberedLines(50).join('\n');
    expect(fitToModel(text, text.length)).toEqual({ text, truncated: false });
    expect(fitToModel(text, text.length + 1)).toEqual({ text, truncated: false });
    expect(fitToModel('', 10)).toEqual({ text: '', truncated: false });
  });

  it('keeps about two thirds from the beginning and one third from the end, whole lines, with the marker between', () => {
    const lines = numberedLines(2_000);
    const text = lines.join('\n');
    const maxChars = 20_000;
    const fitted = fitToModel(text, maxChars);

    expect(fitted.truncated).toBe(true);
    expect(fitted.text.length).toBeLessThanOrEqual(maxChars);
    expect(fitted.text.length).toBeGreaterThan(maxChars * 0.95);
    const out = fitted.text.split('\n');
    const marker = out.indexOf(OMISSION_MARKER);
    expect(out.filter((line) => line === OMISSION_MARKER)).toHaveLength(1);
    const head = out.slice(0, marker);
    const tail = out.slice(marker + 1);
    // Whole lines: the head is the input's first lines, the tail its last ones.
    expect(head).toEqual(lines.slice(0, head.length));
    expect(tail).toEqual(lines.slice(lines.length - tail.length));
    const headChars = head.join('\n').length;
    const tailChars = tail.join('\n').length;
    expect(headChars / (headChars + tailChars)).toBeGreaterThan(0.6);
    expect(headChars / (headChars + tailChars)).toBeLessThan(0.72);
  });

  it('cuts inside one very long line at spaces rather than waste the room, still within the limit', () => {
    const words = Array.from({ length: 5_000 }, (_, i) => `단어${i}`);
    const text = words.join(' ');
    const fitted = fitToModel(text, 3_000);
    expect(fitted.truncated).toBe(true);
    expect(fitted.text.length).toBeLessThanOrEqual(3_000);
    expect(fitted.text.length).toBeGreaterThan(2_900);
    const [head, marker, tail] = fitted.text.split('\n');
    expect(marker).toBe(OMISSION_MARKER);
    expect(text.startsWith(`${head} `)).toBe(true);
    expect(text.endsWith(` ${tail}`)).toBe(true);
  });

  it('cuts text without spaces or breaks anywhere, never splitting a surrogate pair', () => {
    const text = '😀'.repeat(5_000);
    // Odd and even rooms for the head and the tail: some cuts fall between the halves of a pair.
    for (const maxChars of [1_001, 1_002, 1_003, 1_004]) {
      const fitted = fitToModel(text, maxChars);
      expect(fitted.text.length).toBeLessThanOrEqual(maxChars);
      expect(fitted.text.length).toBeGreaterThan(maxChars - 3);
      expect(fitted.text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    }
  });

  it('respects limits smaller than the marker', () => {
    const text = numberedLines(10).join('\n');
    for (const maxChars of [1, 5, 9, 12]) {
      const fitted = fitToModel(text, maxChars);
      expect(fitted.truncated).toBe(true);
      expect(fitted.text.length).toBeLessThanOrEqual(maxChars);
    }
  });

  it('uses MAX_MODEL_CHARS (60,000) by default and refuses a limit that is not a positive integer', () => {
    expect(MAX_MODEL_CHARS).toBe(60_000);
    const text = numberedLines(8_000).join('\n');
    expect(text.length).toBeGreaterThan(MAX_MODEL_CHARS);
    const fitted = fitToModel(text);
    expect(fitted.truncated).toBe(true);
    expect(fitted.text.length).toBeLessThanOrEqual(MAX_MODEL_CHARS);
    expect(fitted.text.length).toBeGreaterThan(MAX_MODEL_CHARS - 200);
    expect(() => fitToModel(text, 0)).toThrow(RangeError);
    expect(() => fitToModel(text, 10.5)).toThrow(RangeError);
  });
});
