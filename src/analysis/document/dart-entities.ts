import { decodeHTMLStrict } from 'entities';

/** DART's own entity for a line break inside a block, in dart3 documents and older filers' software. */
const DART_LINE_BREAK = /&cr;/gi;

/**
 * What `&cr;` decodes to: U+2028 LINE SEPARATOR, a line break that cannot be confused with the
 * markup's own newlines (whitespace between words). Inside a table cell it is a space like any other.
 */
export const LINE_SEPARATOR = '\u2028';

/**
 * Decodes the entities of DART markup: `&cr;` (DART's line break) as LINE_SEPARATOR, the HTML set
 * (`&nbsp;`, `&middot;`…), decimal and hexadecimal references. An `&` that starts no known entity
 * ("R&D", "M&A") stays as written.
 */
export function decodeDartEntities(text: string): string {
  return decodeHTMLStrict(text.replace(DART_LINE_BREAK, LINE_SEPARATOR));
}
