import { crc32 } from 'node:zlib';
import * as yauzl from 'yauzl';

/** A ZIP that cannot be read: not a ZIP, cut short, encrypted, or an entry too large or corrupt. */
export class DocumentArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DocumentArchiveError';
  }
}

export interface ZipEntry {
  name: string;
  /** Uncompressed size as the central directory states it. */
  size: number;
}

/** The entry `choose` picked and its uncompressed bytes. */
export interface ReadZipEntry {
  entry: ZipEntry;
  bytes: Buffer;
}

/**
 * Reads the one entry `choose` picks from a ZIP held in memory (document.xml archives are small):
 * refused above `maxBytes`, checked against the stored size and CRC. Every failure to read the
 * archive is a DocumentArchiveError.
 */
export async function readZipEntry(
  zip: Buffer,
  choose: (entries: readonly ZipEntry[]) => ZipEntry,
  maxBytes: number,
): Promise<ReadZipEntry> {
  // Names decoded here, not by yauzl, which refuses an archive holding a name like "../x" we never write anywhere.
  const archive = await asArchiveError(yauzl.fromBufferPromise(zip, { lazyEntries: true, decodeStrings: false }));
  try {
    const listed: Array<{ entry: ZipEntry; raw: yauzl.Entry }> = [];
    for await (const raw of asArchiveErrors(archive.eachEntry())) listed.push({ entry: describeEntry(raw), raw });
    const entry = choose(listed.map((item) => item.entry));
    const raw = listed.find((item) => item.entry === entry)!.raw;
    return { entry, bytes: await readEntry(archive, raw, entry, maxBytes) };
  } finally {
    archive.close();
  }
}

function describeEntry(raw: yauzl.Entry): ZipEntry {
  // Bit 11: the name is UTF-8; otherwise it is in a legacy code page, of which the ASCII names we look for are the same.
  const name = (raw.fileName as unknown as Buffer).toString(raw.generalPurposeBitFlag & 0x800 ? 'utf8' : 'latin1');
  return { name, size: raw.uncompressedSize };
}

async function readEntry(archive: yauzl.ZipFile, raw: yauzl.Entry, entry: ZipEntry, maxBytes: number): Promise<Buffer> {
  if (raw.isEncrypted()) throw new DocumentArchiveError(`${entry.name} is encrypted`);
  if (entry.size > maxBytes) throw new DocumentArchiveError(`${entry.name} holds ${entry.size} bytes, more than the ${maxBytes} accepted`);
  if (raw.compressionMethod !== 0 && raw.compressionMethod !== 8) {
    throw new DocumentArchiveError(`${entry.name} uses compression method ${raw.compressionMethod}`);
  }
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    const stream = await archive.openReadStreamPromise(raw);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      length += chunk.length;
      // yauzl stops at the stated size; this bound holds whatever the directory says (a ZIP bomb).
      if (length > maxBytes) {
        stream.destroy();
        throw new DocumentArchiveError(`${entry.name} holds more than the ${maxBytes} bytes accepted`);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof DocumentArchiveError) throw error;
    throw new DocumentArchiveError(`${entry.name} cannot be read (${describe(error)})`);
  }
  const bytes = Buffer.concat(chunks, length);
  if (bytes.length !== entry.size || crc32(bytes) !== raw.crc32)
    throw new DocumentArchiveError(`${entry.name} is corrupt (size or CRC mismatch)`);
  return bytes;
}

/** yauzl's own errors (not a ZIP, cut short, a corrupt directory) as DocumentArchiveErrors. */
async function asArchiveError<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw new DocumentArchiveError(`not a readable ZIP archive (${describe(error)})`);
  }
}

async function* asArchiveErrors<T>(items: AsyncIterable<T>): AsyncIterable<T> {
  try {
    yield* items;
  } catch (error) {
    throw new DocumentArchiveError(`the ZIP central directory is corrupt (${describe(error)})`);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
