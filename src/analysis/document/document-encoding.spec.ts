import { isUtf8 } from 'node:buffer';
import * as iconv from 'iconv-lite';
import { declaredEncoding, decodeDocument } from './document-encoding';

const KOREAN = '<P>주식회사 똠방각하의 매출액은 1,234억원(전년 대비 12.5% 증가)이며, 대표이사는 김철수ㆍ이영희입니다.</P>';

describe('decodeDocument', () => {
  it('reads UTF-8 as declared', () => {
    const text = `<?xml version="1.0" encoding="utf-8"?>\n${KOREAN}`;
    expect(decodeDocument(Buffer.from(text, 'utf8'))).toEqual({ text, encoding: 'utf-8' });
  });

  it('reads EUC-KR bytes declared EUC-KR, including CP949 syllables outside KS X 1001 (똠)', () => {
    const text = `<?xml version="1.0" encoding="EUC-KR"?>\n${KOREAN}`;
    const bytes = iconv.encode(text, 'euc-kr');
    // The premise: these bytes are not UTF-8, so a UTF-8 reader would garble them.
    expect(isUtf8(bytes)).toBe(false);
    expect(bytes.toString('utf8')).not.toContain('주식회사');
    expect(decodeDocument(bytes)).toEqual({ text, encoding: 'euc-kr' });
  });

  it('knows the other labels of the Korean encoding', () => {
    for (const label of ['euc-kr', 'EUC-KR', 'ks_c_5601-1987', 'CP949', 'x-windows-949']) {
      const text = `<?xml version='1.0' encoding='${label}' standalone="yes"?>${KOREAN}`;
      expect(decodeDocument(iconv.encode(text, 'cp949'))).toEqual({ text, encoding: 'euc-kr' });
    }
  });

  it('detects undeclared EUC-KR, and EUC-KR mislabelled as UTF-8, from bytes that are not UTF-8', () => {
    expect(decodeDocument(iconv.encode(KOREAN, 'euc-kr'))).toEqual({ text: KOREAN, encoding: 'euc-kr' });
    const mislabelled = `<?xml version="1.0" encoding="UTF-8"?>${KOREAN}`;
    expect(decodeDocument(iconv.encode(mislabelled, 'euc-kr'))).toEqual({ text: mislabelled, encoding: 'euc-kr' });
  });

  it('reads a file converted to UTF-8 that still declares EUC-KR as UTF-8', () => {
    const text = `<?xml version="1.0" encoding="euc-kr"?>${KOREAN}`;
    expect(decodeDocument(Buffer.from(text, 'utf8'))).toEqual({ text, encoding: 'utf-8' });
  });

  it('follows a byte order mark and drops it', () => {
    expect(decodeDocument(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(KOREAN, 'utf8')]))).toEqual({
      text: KOREAN,
      encoding: 'utf-8',
    });
    expect(decodeDocument(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(KOREAN, 'utf16le')]))).toEqual({
      text: KOREAN,
      encoding: 'utf-16le',
    });
  });

  it('reads the charset of an HTML attachment', () => {
    const html = `<html><head><meta http-equiv="Content-Type" content="text/html; charset=euc-kr"></head><body>${KOREAN}</body></html>`;
    expect(declaredEncoding(Buffer.from(html, 'latin1'))).toBe('euc-kr');
    expect(decodeDocument(iconv.encode(html, 'euc-kr'))).toEqual({ text: html, encoding: 'euc-kr' });
  });

  it('never throws on bytes that fit no encoding', () => {
    const garbage = Buffer.from([0x3c, 0x50, 0x3e, 0xff, 0xfe, 0x80, 0x81, 0xc8, 0x3c, 0x2f, 0x50, 0x3e]);
    expect(decodeDocument(garbage).text).toContain('<P>');
  });
});
