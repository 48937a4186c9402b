import { isUtf8 } from 'node:buffer';
import * as iconv from 'iconv-lite';

/**
 * 'utf-8' or 'euc-kr' for DART documents ('utf-16le' / 'utf-16be' after a byte order mark); another
 * declared encoding that iconv-lite knows is decoded as declared and reported by its lower-cased label.
 */
export type DocumentEncoding = string;

/** Labels of the Korean legacy encoding. Decoded as CP949, its superset: what "EUC-KR" writers actually produce. */
const KOREAN_LABELS = new Set([
  'euc-kr',
  'euckr',
  'cp949',
  'ms949',
  'uhc',
  'ks_c_5601-1987',
  'ks_c_5601',
  'ksc5601',
  'x-windows-949',
  'windows-949',
]);
const UTF8_LABELS = new Set(['utf-8', 'utf8']);
/** The declaration is at the very start; a BOM and some whitespace may come before it. */
const HEAD_BYTES = 1024;
const XML_DECLARATION = /^\s*<\?xml[^>]*?\bencoding\s*=\s*["']\s*([A-Za-z0-9._:-]+)\s*["']/i;
/** HTML attachments declare a charset in a meta element instead. */
const META_CHARSET = /<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)/i;

/**
 * Decodes a document file. In order of trust: a byte order mark; then the declared encoding
 * (XML declaration, or an HTML meta charset), checked against the bytes; then the bytes alone.
 * Declarations lie in both directions, so:
 * - declared (or undeclared) UTF-8 that is not valid UTF-8 is read as EUC-KR, the only other
 *   encoding Korean filings use;
 * - declared EUC-KR that is valid UTF-8 with non-ASCII bytes is read as UTF-8 (a file converted
 *   without its declaration: real EUC-KR Korean text is practically never valid UTF-8).
 * Never throws: undecodable bytes become U+FFFD.
 */
export function decodeDocument(bytes: Buffer): { text: string; encoding: DocumentEncoding } {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { text: bytes.subarray(3).toString('utf8'), encoding: 'utf-8' };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { text: bytes.subarray(2).toString('utf16le'), encoding: 'utf-16le' };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { text: iconv.decode(bytes.subarray(2), 'utf-16be'), encoding: 'utf-16be' };

  const declared = declaredEncoding(bytes);
  const utf8 = isUtf8(bytes);
  if (declared === undefined || UTF8_LABELS.has(declared)) return utf8 ? asUtf8(bytes) : asKorean(bytes);
  if (KOREAN_LABELS.has(declared)) return utf8 && hasNonAscii(bytes) ? asUtf8(bytes) : asKorean(bytes);
  if (iconv.encodingExists(declared)) return { text: stripBom(iconv.decode(bytes, declared)), encoding: declared };
  // An encoding we do not know: the bytes decide.
  return utf8 ? asUtf8(bytes) : asKorean(bytes);
}

/** The encoding label the document declares, lower-cased; undefined when it declares none. */
export function declaredEncoding(bytes: Buffer): string | undefined {
  // latin1 maps each byte to one character, so ASCII markup reads the same in any of the encodings above.
  const head = bytes.subarray(0, HEAD_BYTES).toString('latin1');
  const match = XML_DECLARATION.exec(head) ?? META_CHARSET.exec(head);
  return match?.[1].toLowerCase();
}

function asUtf8(bytes: Buffer): { text: string; encoding: DocumentEncoding } {
  return { text: bytes.toString('utf8'), encoding: 'utf-8' };
}

function asKorean(bytes: Buffer): { text: string; encoding: DocumentEncoding } {
  return { text: iconv.decode(bytes, 'cp949'), encoding: 'euc-kr' };
}

function hasNonAscii(bytes: Buffer): boolean {
  return bytes.some((byte) => byte >= 0x80);
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
