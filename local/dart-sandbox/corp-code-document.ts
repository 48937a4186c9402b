import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { SandboxCompany } from './sandbox-data';

/** Entries per chunk handed to the compressor: big enough to be quick, small enough to keep memory flat. */
const ENTRIES_PER_CHUNK = 2_000;

export function escapeXml(text: string): string {
  return text.replace(/[&<>]/g, (char) => (char === '&' ? '&amp;' : char === '<' ? '&lt;' : '&gt;'));
}

/** `CORPCODE.xml` in the upstream layout, produced a chunk at a time. */
export function* corpCodeXml(companies: readonly SandboxCompany[]): Generator<Buffer> {
  yield Buffer.from('<?xml version="1.0" encoding="UTF-8"?>\n<result>\n');
  let text = '';
  for (let i = 0; i < companies.length; i++) {
    const company = companies[i];
    text +=
      '    <list>\n' +
      `        <corp_code>${company.corpCode}</corp_code>\n` +
      `        <corp_name>${escapeXml(company.corpName)}</corp_name>\n` +
      `        <corp_eng_name>${escapeXml(company.corpEngName)}</corp_eng_name>\n` +
      // Entries without shares carry a single space, not an empty element.
      `        <stock_code>${company.stockCode ?? ' '}</stock_code>\n` +
      `        <modify_date>${company.modifyDate}</modify_date>\n` +
      '    </list>\n';
    if ((i + 1) % ENTRIES_PER_CHUNK === 0) {
      yield Buffer.from(text);
      text = '';
    }
  }
  yield Buffer.from(`${text}</result>\n`);
}

/** The corpCode.xml download: a ZIP holding CORPCODE.xml, compressed as it is written. */
export async function buildCorpCodeZip(companies: readonly SandboxCompany[], modified: Date): Promise<Buffer> {
  const zip = new ZipFile();
  // A copy: the sandbox may change while the archive is compressed.
  zip.addReadStream(Readable.from(corpCodeXml(companies.slice())), 'CORPCODE.xml', { mtime: modified });
  zip.end();
  const parts: Buffer[] = [];
  for await (const part of zip.outputStream as AsyncIterable<Buffer>) parts.push(part);
  return Buffer.concat(parts);
}
