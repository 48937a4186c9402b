import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ZipFile } from 'yazl';
import { CorpCodeParser, parseResultXml, readCorpCodeZip } from './corp-code-parser';
import type { CorpCodeEntry } from './dart.types';

const DOCUMENT = `<?xml version="1.0" encoding="UTF-8"?>
<result>
    <list>
        <corp_code>00126380</corp_code>
        <corp_name>삼성전자</corp_name>
        <corp_eng_name>SAMSUNG ELECTRONICS CO,.LTD</corp_eng_name>
        <stock_code>005930</stock_code>
        <modify_date>20250101</modify_date>
    </list>
    <list>
        <corp_code>00434003</corp_code>
        <corp_name> 다코 </corp_name>
        <corp_eng_name></corp_eng_name>
        <stock_code> </stock_code>
        <modify_date>20170630</modify_date>
    </list>
    <list>
        <corp_code>00244455</corp_code>
        <corp_name>KT&amp;G</corp_name>
        <corp_eng_name>KT&amp;G Corporation</corp_eng_name>
        <stock_code>033780</stock_code>
        <modify_date>20240315</modify_date>
    </list>
    <list>
        <corp_code>01900001</corp_code>
        <corp_name>100%바이오</corp_name>
        <corp_eng_name>A_B &lt;Bio&gt;</corp_eng_name>
        <stock_code/>
        <modify_date>20260101</modify_date>
    </list>
</result>
`;

const EXPECTED: CorpCodeEntry[] = [
  { corpCode: '00126380', corpName: '삼성전자', corpEngName: 'SAMSUNG ELECTRONICS CO,.LTD', stockCode: '005930', modifyDate: '20250101' },
  { corpCode: '00434003', corpName: '다코', corpEngName: '', stockCode: null, modifyDate: '20170630' },
  { corpCode: '00244455', corpName: 'KT&G', corpEngName: 'KT&G Corporation', stockCode: '033780', modifyDate: '20240315' },
  { corpCode: '01900001', corpName: '100%바이오', corpEngName: 'A_B <Bio>', stockCode: null, modifyDate: '20260101' },
];

function parseInPieces(text: string, size: number): CorpCodeEntry[] {
  const parser = new CorpCodeParser();
  const entries: CorpCodeEntry[] = [];
  for (let i = 0; i < text.length; i += size) entries.push(...parser.write(text.slice(i, i + size)));
  entries.push(...parser.close());
  return entries;
}

describe('CorpCodeParser', () => {
  it('reads entries, trims names, escapes back and turns a blank stock code into null', () => {
    expect(parseInPieces(DOCUMENT, DOCUMENT.length)).toEqual(EXPECTED);
  });

  it('gives the same entries however the text is cut into pieces (inside tags, entities, characters)', () => {
    for (const size of [1, 2, 3, 7, 64, 333]) expect(parseInPieces(DOCUMENT, size)).toEqual(EXPECTED);
  });

  it('hands entries out as they complete, not all at the end', () => {
    const parser = new CorpCodeParser();
    const cut = DOCUMENT.indexOf('<list>', DOCUMENT.indexOf('</list>'));
    expect(parser.write(DOCUMENT.slice(0, cut))).toHaveLength(1);
    expect(parser.write(DOCUMENT.slice(cut))).toHaveLength(3);
    expect(parser.close()).toEqual([]);
  });

  it('throws on malformed or truncated XML', () => {
    expect(() => new CorpCodeParser().write('<result><list><corp_code>1</corp_name></list>')).toThrow();
    const parser = new CorpCodeParser();
    parser.write(DOCUMENT.slice(0, 200));
    expect(() => parser.close()).toThrow();
  });
});

describe('parseResultXml', () => {
  it('reads the status document OpenDART sends instead of a ZIP', () => {
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?>\n<result>\n<status>011</status>\n<message>사용할 수 없는 키입니다.</message>\n</result>';
    expect(parseResultXml(xml)).toEqual({ status: '011', message: '사용할 수 없는 키입니다.' });
  });

  it('answers null for anything else', () => {
    expect(parseResultXml('<html><body>Bad gateway</body></html>')).toBeNull();
    expect(parseResultXml('not xml at all')).toBeNull();
    expect(parseResultXml('')).toBeNull();
  });
});

describe('readCorpCodeZip', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'corp-code-parser-spec-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function zipOf(files: Record<string, string>): Promise<string> {
    const zip = new ZipFile();
    for (const [name, text] of Object.entries(files)) zip.addBuffer(Buffer.from(text), name);
    zip.end();
    const parts: Buffer[] = [];
    for await (const part of zip.outputStream as AsyncIterable<Buffer>) parts.push(part);
    const file = path.join(dir, 'corpCode.zip');
    await writeFile(file, Buffer.concat(parts));
    return file;
  }

  it('streams the entries of CORPCODE.xml out of the archive', async () => {
    const entries: CorpCodeEntry[] = [];
    for await (const entry of readCorpCodeZip(await zipOf({ 'CORPCODE.xml': DOCUMENT }))) entries.push(entry);
    expect(entries).toEqual(EXPECTED);
  });

  it('fails when the archive holds no XML file', async () => {
    const read = async (): Promise<void> => {
      for await (const _entry of readCorpCodeZip(await zipOf({ 'readme.txt': 'nothing here' }))) {
        // no entries expected
      }
    };
    await expect(read()).rejects.toThrow('no XML file');
  });
});
