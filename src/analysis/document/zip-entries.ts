import { crc32, inflateRawSync } from 'node:zlib';

/** A ZIP that cannot be read: not a ZIP, cut short, encrypted, ZIP64, or an entry too large or corrupt. */
export class DocumentArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DocumentArchiveError';
  }
}

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated; nothing else is read. */
  method: number;
  compressedSize: number;
  /** Uncompressed size as the central directory states it. */
  size: number;
  crc: number;
  localHeaderOffset: number;
  encrypted: boolean;
}

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const END_RECORD_SIZE = 22;
const MAX_COMMENT = 0xffff;

/**
 * The entries of a ZIP held in memory, from its central directory (which, unlike the local headers,
 * always carries the sizes). document.xml archives are small and hold a few files, so reading them
 * synchronously from the buffer is simpler than streaming and costs nothing.
 */
export function listZipEntries(zip: Buffer): ZipEntry[] {
  const end = findEndOfDirectory(zip);
  const count = zip.readUInt16LE(end + 10);
  const directorySize = zip.readUInt32LE(end + 12);
  const directoryOffset = zip.readUInt32LE(end + 16);
  if (count === 0xffff || directoryOffset === 0xffffffff) throw new DocumentArchiveError('ZIP64 archives are not supported');
  if (directoryOffset + directorySize > end) throw new DocumentArchiveError('the ZIP central directory lies outside the archive');

  const entries: ZipEntry[] = [];
  let at = directoryOffset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || zip.readUInt32LE(at) !== DIRECTORY_ENTRY) throw new DocumentArchiveError('the ZIP central directory is corrupt');
    const flags = zip.readUInt16LE(at + 8);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const nameBytes = zip.subarray(at + 46, at + 46 + nameLength);
    entries.push({
      // Bit 11: the name is UTF-8; otherwise it is in a legacy code page, of which the ASCII names we look for are the same.
      name: nameBytes.toString(flags & 0x800 ? 'utf8' : 'latin1'),
      method: zip.readUInt16LE(at + 10),
      crc: zip.readUInt32LE(at + 16),
      compressedSize: zip.readUInt32LE(at + 20),
      size: zip.readUInt32LE(at + 24),
      localHeaderOffset: zip.readUInt32LE(at + 42),
      encrypted: (flags & 0x1) !== 0,
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The uncompressed bytes of `entry`, refused above `maxBytes` and checked against the stored CRC. */
export function readZipEntry(zip: Buffer, entry: ZipEntry, maxBytes: number): Buffer {
  if (entry.encrypted) throw new DocumentArchiveError(`${entry.name} is encrypted`);
  if (entry.size > maxBytes) throw new DocumentArchiveError(`${entry.name} holds ${entry.size} bytes, more than the ${maxBytes} accepted`);
  const header = entry.localHeaderOffset;
  if (header + 30 > zip.length || zip.readUInt32LE(header) !== LOCAL_HEADER) throw new DocumentArchiveError(`${entry.name}: the local header is missing`);
  const start = header + 30 + zip.readUInt16LE(header + 26) + zip.readUInt16LE(header + 28);
  if (start + entry.compressedSize > zip.length) throw new DocumentArchiveError(`${entry.name} is cut short`);
  const data = zip.subarray(start, start + entry.compressedSize);

  let bytes: Buffer;
  if (entry.method === 0) bytes = data;
  else if (entry.method === 8) {
    try {
      // The output bound holds even when the directory understates the size (a ZIP bomb).
      bytes = inflateRawSync(data, { maxOutputLength: maxBytes });
    } catch (error) {
      throw new DocumentArchiveError(`${entry.name} cannot be inflated (${error instanceof Error ? error.message : String(error)})`);
    }
  } else throw new DocumentArchiveError(`${entry.name} uses compression method ${entry.method}`);

  if (bytes.length !== entry.size || crc32(bytes) !== entry.crc) throw new DocumentArchiveError(`${entry.name} is corrupt (size or CRC mismatch)`);
  return bytes;
}

function findEndOfDirectory(zip: Buffer): number {
  // The end record is last, followed only by a comment of at most 65,535 bytes.
  const lowest = Math.max(0, zip.length - END_RECORD_SIZE - MAX_COMMENT);
  for (let at = zip.length - END_RECORD_SIZE; at >= lowest; at--) {
    if (zip.readUInt32LE(at) === END_OF_DIRECTORY) return at;
  }
  throw new DocumentArchiveError(zip.length >= 2 && zip[0] === 0x50 && zip[1] === 0x4b ? 'the ZIP is cut short (no end of central directory)' : 'not a ZIP archive');
}
