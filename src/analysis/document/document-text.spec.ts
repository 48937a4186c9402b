import * as iconv from 'iconv-lite';
import { ZipFile } from 'yazl';
import { type DartSandbox, startDartSandbox } from '../../../local/dart-sandbox/dart-sandbox';
import { DartClient } from '../../upstream/dart/dart-client';
import { DocumentArchiveError, extractDocumentText } from './document-text';

const RCEPT_NO = '20260310000123';

async function zipOf(files: Array<{ name: string; bytes: Buffer | string; compress?: boolean }>): Promise<Buffer> {
  const zip = new ZipFile();
  for (const file of files)
    zip.addBuffer(Buffer.isBuffer(file.bytes) ? file.bytes : Buffer.from(file.bytes, 'utf8'), file.name, {
      compress: file.compress ?? true,
    });
  zip.end();
  const parts: Buffer[] = [];
  for await (const part of zip.outputStream as AsyncIterable<Buffer>) parts.push(part);
  return Buffer.concat(parts);
}

function document(body: string, encoding = 'utf-8'): string {
  return `<?xml version="1.0" encoding="${encoding}"?><DOCUMENT><DOCUMENT-NAME>현금ㆍ현물배당결정</DOCUMENT-NAME><BODY><COVER><P>표지</P></COVER>${body}</BODY></DOCUMENT>`;
}

describe('extractDocumentText', () => {
  it('reads {rcept_no}.xml, not the attachments, even when they are larger and come first', async () => {
    const zip = await zipOf([
      { name: `${RCEPT_NO}_00760.xml`, bytes: document(`<P>${'감사보고서 '.repeat(2_000)}</P>`) },
      { name: `${RCEPT_NO}.xml`, bytes: document('<SECTION-1><TITLE>1. 배당구분</TITLE><P>결산배당</P></SECTION-1>') },
    ]);
    expect(await extractDocumentText(zip, RCEPT_NO)).toEqual({
      text: '현금ㆍ현물배당결정\n1. 배당구분\n결산배당',
      entryName: `${RCEPT_NO}.xml`,
      encoding: 'utf-8',
    });
  });

  it('falls back to the largest .xml when the archive has no {rcept_no}.xml, ignoring other files', async () => {
    const zip = await zipOf([
      { name: 'image.jpg', bytes: Buffer.alloc(50_000, 1) },
      { name: 'small.xml', bytes: document('<P>작은 문서</P>') },
      { name: 'LARGE.XML', bytes: document(`<P>큰 문서 ${'내용 '.repeat(100)}</P>`) },
    ]);
    const extracted = await extractDocumentText(zip, RCEPT_NO);
    expect(extracted.entryName).toBe('LARGE.XML');
    expect(extracted.text.startsWith('현금ㆍ현물배당결정\n큰 문서 내용')).toBe(true);
  });

  it('decodes an EUC-KR entry and reads entries stored without compression', async () => {
    const text = document('<P>1주당 배당금 : 1,500원, 시가배당율 : 2.35%</P>', 'EUC-KR');
    const zip = await zipOf([{ name: `${RCEPT_NO}.xml`, bytes: iconv.encode(text, 'euc-kr'), compress: false }]);
    expect(await extractDocumentText(zip, RCEPT_NO)).toEqual({
      text: '현금ㆍ현물배당결정\n1주당 배당금 : 1,500원, 시가배당율 : 2.35%',
      entryName: `${RCEPT_NO}.xml`,
      encoding: 'euc-kr',
    });
  });

  it('throws a DocumentArchiveError for what is not a readable archive', async () => {
    const good = await zipOf([{ name: `${RCEPT_NO}.xml`, bytes: document(`<P>${'본문 '.repeat(500)}</P>`) }]);
    const failure = async (zip: Buffer): Promise<unknown> => {
      try {
        await extractDocumentText(zip, RCEPT_NO);
      } catch (error) {
        return error;
      }
      return undefined;
    };

    expect(await failure(Buffer.from('<result><status>014</status></result>'))).toBeInstanceOf(DocumentArchiveError);
    expect(await failure(Buffer.alloc(0))).toBeInstanceOf(DocumentArchiveError);
    expect(await failure(good.subarray(0, good.length - 30))).toBeInstanceOf(DocumentArchiveError);
    // A flipped byte in the compressed data: inflating fails or the CRC does not match.
    const corrupt = Buffer.from(good);
    corrupt[60] ^= 0xff;
    expect(await failure(corrupt)).toBeInstanceOf(DocumentArchiveError);
    const noXml = await zipOf([{ name: 'readme.txt', bytes: 'no document' }]);
    expect(await failure(noXml)).toMatchObject({ name: 'DocumentArchiveError', message: expect.stringContaining('no .xml') });
    expect((await extractDocumentText(good, RCEPT_NO)).text).toContain('본문');
  });
});

describe('extractDocumentText on documents fetched from the sandbox', () => {
  let sandbox: DartSandbox;
  let client: DartClient;
  beforeAll(async () => {
    sandbox = await startDartSandbox({
      seed: 9,
      companyCount: 300,
      filingsPerBusinessDay: 12,
      now: () => new Date('2026-03-10T03:00:00Z'),
    });
    client = new DartClient(
      {
        baseUrl: sandbox.baseUrl,
        apiKey: sandbox.apiKey,
        requestsPerMinute: 10_000,
        requestsPerDay: 100_000,
        timeoutMs: 10_000,
        maxAttempts: 2,
        retryBaseMs: 1,
      },
      { logger: { warn: () => undefined, error: () => undefined } },
    );
  });
  afterAll(() => sandbox.close());

  /** The first filing whose document is of `kind`. */
  function filingOf(kind: string, also: (rceptNo: string) => boolean = () => true): string {
    const found = sandbox.control
      .filings()
      .find((filing) => sandbox.control.documentOf(filing.rcept_no)?.kind === kind && also(filing.rcept_no));
    if (found === undefined) throw new Error(`no ${kind} document in the sandbox`);
    return found.rcept_no;
  }

  it('turns malformed, EUC-KR and long documents into plain text without markup or cover', async () => {
    for (const kind of ['malformed', 'euc-kr', 'long', 'short']) {
      const rceptNo = filingOf(kind);
      const { text, entryName, encoding } = await extractDocumentText(await client.document(rceptNo, 'analysisDocument'), rceptNo);
      expect(entryName).toBe(`${rceptNo}.xml`);
      expect(encoding).toBe(kind === 'euc-kr' ? 'euc-kr' : 'utf-8');
      // No tags, no cover (its signatory line), no metadata, and the body's first title is there.
      expect(text).not.toMatch(/<\/?[A-Za-z][A-Za-z0-9-]*[ >]/);
      expect(text).not.toContain('작성책임자');
      expect(text).not.toContain('RECEIPT_DATE');
      const firstTitle = /<TITLE[^>]*>([^<]*)<\/TITLE>/.exec(sandbox.control.documentOf(rceptNo)!.xml!)![1];
      expect(text).toContain(firstTitle.replace(/&amp;/g, '&'));
      expect(text).not.toMatch(/\n\n| {2}/);
    }
  });

  it('reads over 100,000 characters from the longest documents', async () => {
    const rceptNo = filingOf('long', (no) => sandbox.control.documentOf(no)!.xml!.length > 250_000);
    const { text } = await extractDocumentText(await client.document(rceptNo, 'analysisDocument'), rceptNo);
    expect(text.length).toBeGreaterThan(100_000);
  });
});
