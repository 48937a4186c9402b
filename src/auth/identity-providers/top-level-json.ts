/** JSON's insignificant white space (RFC 8259 §2); nothing else may stand between tokens. */
const WHITESPACE = ' \t\n\r';

/**
 * The values of `key` among the top-level members of the JSON object `json`, each as the
 * exact text it is written with: a number keeps every digit (JSON.parse would round one
 * above 2^53 to a double, merging neighbouring ids), a string keeps its quotes and escapes.
 * Keys are compared after unescaping, as JSON.parse compares them; nested members are
 * skipped; a duplicated key gives one entry per occurrence, in order.
 *
 * @throws SyntaxError when `json` is not a JSON object
 */
export function topLevelValueTexts(json: string, key: string): string[] {
  const parsed: unknown = JSON.parse(json);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new SyntaxError('not a JSON object');
  }
  // JSON.parse accepted the text, so from here on only the member boundaries need finding.
  const values: string[] = [];
  let at = expectAt(json, skipWhitespace(json, 0), '{') + 1;
  at = skipWhitespace(json, at);
  if (json[at] === '}') return values;
  for (;;) {
    const keyEnd = endOfString(json, at);
    const name = JSON.parse(json.slice(at, keyEnd)) as string;
    const valueStart = skipWhitespace(json, expectAt(json, skipWhitespace(json, keyEnd), ':') + 1);
    const valueEnd = endOfValue(json, valueStart);
    if (name === key) values.push(json.slice(valueStart, valueEnd));
    at = skipWhitespace(json, valueEnd);
    if (json[at] === '}') return values;
    at = skipWhitespace(json, expectAt(json, at, ',') + 1);
  }
}

function skipWhitespace(text: string, at: number): number {
  while (at < text.length && WHITESPACE.includes(text[at])) at++;
  return at;
}

function expectAt(text: string, at: number, char: string): number {
  if (text[at] !== char) throw new SyntaxError(`expected ${char} at ${at}`);
  return at;
}

/** The index just past the string that opens at `start`. */
function endOfString(text: string, start: number): number {
  expectAt(text, start, '"');
  for (let at = start + 1; at < text.length; at++) {
    // The character after a backslash is escaped, so an escaped quote does not end the string.
    if (text[at] === '\\') at++;
    else if (text[at] === '"') return at + 1;
  }
  throw new SyntaxError('unterminated string');
}

/** The index just past the value that starts at `start`, with everything nested in it. */
function endOfValue(text: string, start: number): number {
  if (text[start] === '"') return endOfString(text, start);
  if (text[start] === '{' || text[start] === '[') return endOfContainer(text, start);
  // A number or a literal runs up to the next delimiter.
  let at = start;
  while (at < text.length && !',}]'.includes(text[at]) && !WHITESPACE.includes(text[at])) at++;
  if (at === start) throw new SyntaxError(`expected a value at ${start}`);
  return at;
}

function endOfContainer(text: string, start: number): number {
  let depth = 0;
  let at = start;
  while (at < text.length) {
    const char = text[at];
    if (char === '"') {
      // Brackets inside strings are text, not structure.
      at = endOfString(text, at);
      continue;
    }
    if (char === '{' || char === '[') depth++;
    else if ((char === '}' || char === ']') && --depth === 0) return at + 1;
    at++;
  }
  throw new SyntaxError('unterminated object or array');
}
