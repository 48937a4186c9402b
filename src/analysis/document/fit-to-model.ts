/**
 * Characters of document text handed to the model by default. About 60,000 Korean characters are
 * some 40,000–60,000 tokens: room for the prompt and the answer in the context of every model we
 * use, at a cost per analysis we accept. Most filings (notices, major-event reports) are far shorter;
 * periodic reports, prospectuses and audit reports are longer.
 */
export const MAX_MODEL_CHARS = 60_000;

/** The line that stands where text was left out. */
export const OMISSION_MARKER = '…(중략)…';

/** Share of the room given to the beginning of the document; the end gets the rest. */
const HEAD_SHARE = 2 / 3;
/** A cut at a line break may give up at most this share of its room; past that (one very long line) it cuts at a space. */
const MAX_WASTE = 0.25;

/**
 * Fits document text into `maxChars` characters. Text within the limit is returned as it is.
 * Longer text keeps its beginning (two thirds of the room) and its end (one third), with the line
 * `…(중략)…` between them, and never exceeds `maxChars`.
 *
 * For documents without sections to choose from, and for notices and event forms: these state the
 * decision first (its table) and end with what qualifies it (기타 투자판단에 참고할 사항), so the head
 * and the tail give a model the facts and their caveats. Periodic and audit reports are not cut this
 * way: their sections are chosen (src/analysis/brief/model-text.ts), since the beginning of a long
 * report is its cover and table of contents.
 *
 * Cuts fall on line breaks (a table row or paragraph is kept whole or left out), except when that
 * would waste more than a quarter of the room on one very long line: then at a space, else anywhere.
 */
export function fitToModel(text: string, maxChars: number = MAX_MODEL_CHARS): { text: string; truncated: boolean } {
  if (!Number.isInteger(maxChars) || maxChars < 1) throw new RangeError(`maxChars must be a positive integer (got ${maxChars})`);
  if (text.length <= maxChars) return { text, truncated: false };

  // The marker takes a line of its own: two line breaks besides its characters.
  const room = maxChars - OMISSION_MARKER.length - 2;
  if (room < 2) return { text: keepHead(text, maxChars), truncated: true };
  const headRoom = Math.ceil(room * HEAD_SHARE);
  const head = keepHead(text, headRoom);
  const tail = keepTail(text, room - headRoom);
  return { text: [head, OMISSION_MARKER, tail].filter((part) => part !== '').join('\n'), truncated: true };
}

/** The longest beginning of `text` within `room` characters, cut as described above. */
export function keepHead(text: string, room: number): string {
  const floor = Math.floor(room * (1 - MAX_WASTE));
  let cut = text.lastIndexOf('\n', room);
  if (cut < floor) cut = text.lastIndexOf(' ', room);
  if (cut < floor) cut = safeCut(text, room);
  return text.slice(0, cut).trimEnd();
}

/** The longest end of `text` within `room` characters, cut as described above. */
function keepTail(text: string, room: number): string {
  const start = text.length - room;
  const ceiling = start + Math.ceil(room * MAX_WASTE);
  let cut = text.indexOf('\n', start);
  if (cut === -1 || cut > ceiling) cut = text.indexOf(' ', start);
  // The character at `cut` (a line break or space) is left out; a cut inside a word keeps from `start`.
  const from = cut === -1 || cut > ceiling ? safeStart(text, start) : cut + 1;
  return text.slice(from).trimStart();
}

/** An end before `at`, moved back one place when it would split a surrogate pair. */
function safeCut(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}

/** A start at `at`, moved on one place when it would split a surrogate pair. */
function safeStart(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return code >= 0xdc00 && code <= 0xdfff ? at + 1 : at;
}
