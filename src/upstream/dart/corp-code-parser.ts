import { SaxesParser } from 'saxes';
import * as yauzl from 'yauzl';
import type { CorpCodeEntry } from './dart.types';

/** The child elements of one `<list>` entry that we keep. */
const FIELDS = ['corp_code', 'corp_name', 'corp_eng_name', 'stock_code', 'modify_date'] as const;
type Field = (typeof FIELDS)[number];

function isField(name: string): name is Field {
  return (FIELDS as readonly string[]).includes(name);
}

/**
 * Incremental reader of `CORPCODE.xml`: feed it text as it arrives and take the
 * entries completed so far. Only the entry being read is held, so the file's size
 * never matters.
 */
export class CorpCodeParser {
  private readonly sax = new SaxesParser();
  private completed: CorpCodeEntry[] = [];
  private entry: Partial<Record<Field, string>> | null = null;
  private field: Field | null = null;

  constructor() {
    this.sax.on('opentag', (tag) => {
      if (tag.name === 'list') this.entry = {};
      else if (this.entry !== null && isField(tag.name)) {
        this.field = tag.name;
        this.entry[tag.name] = '';
      }
    });
    this.sax.on('text', (text) => {
      if (this.entry !== null && this.field !== null) this.entry[this.field] += text;
    });
    this.sax.on('closetag', (tag) => {
      if (tag.name === 'list' && this.entry !== null) {
        this.completed.push(toEntry(this.entry));
        this.entry = null;
      }
      this.field = null;
    });
  }

  /** Parses the next piece of the document; returns the entries it completed. Throws on malformed XML. */
  write(text: string): CorpCodeEntry[] {
    this.sax.write(text);
    return this.take();
  }

  /** Ends the document; throws when it was cut short. */
  close(): CorpCodeEntry[] {
    this.sax.close();
    return this.take();
  }

  private take(): CorpCodeEntry[] {
    const entries = this.completed;
    this.completed = [];
    return entries;
  }
}

function toEntry(raw: Partial<Record<Field, string>>): CorpCodeEntry {
  const stockCode = (raw.stock_code ?? '').trim();
  return {
    corpCode: (raw.corp_code ?? '').trim(),
    corpName: (raw.corp_name ?? '').trim(),
    corpEngName: (raw.corp_eng_name ?? '').trim(),
    // Companies without shares on the exchange carry a single space.
    stockCode: stockCode === '' ? null : stockCode,
    modifyDate: (raw.modify_date ?? '').trim(),
  };
}

/** The `<result><status/><message/></result>` body OpenDART sends instead of a ZIP; null when the text is not one. */
export function parseResultXml(text: string): { status: string; message: string } | null {
  const found: Record<string, string> = {};
  let current: string | null = null;
  const sax = new SaxesParser();
  sax.on('opentag', (tag) => {
    current = tag.name === 'status' || tag.name === 'message' ? tag.name : null;
    if (current !== null) found[current] = '';
  });
  sax.on('text', (value) => {
    if (current !== null) found[current] += value;
  });
  sax.on('closetag', () => {
    current = null;
  });
  try {
    sax.write(text).close();
  } catch {
    return null;
  }
  if (found.status === undefined) return null;
  return { status: found.status.trim(), message: (found.message ?? '').trim() };
}

/**
 * Streams the entries of `CORPCODE.xml` out of the ZIP file at `zipPath`: the
 * entry is inflated and parsed chunk by chunk, so memory stays at one chunk's
 * worth of entries however large the file is.
 */
export async function* readCorpCodeZip(zipPath: string): AsyncGenerator<CorpCodeEntry> {
  const zip = await yauzl.openPromise(zipPath, { lazyEntries: true, autoClose: false });
  try {
    let xmlEntry: yauzl.Entry | undefined;
    for await (const entry of zip.eachEntry()) {
      // The archive has held exactly one file, CORPCODE.xml; match loosely in case its case changes.
      if (entry.fileName.toLowerCase().endsWith('.xml')) {
        xmlEntry = entry;
        break;
      }
    }
    if (xmlEntry === undefined) throw new Error('the corpCode.xml archive holds no XML file');

    const stream = await zip.openReadStreamPromise(xmlEntry);
    // The decoder keeps a multi-byte character that straddles two chunks whole.
    stream.setEncoding('utf8');
    const parser = new CorpCodeParser();
    try {
      for await (const chunk of stream as AsyncIterable<string>) {
        yield* parser.write(chunk);
      }
      yield* parser.close();
    } finally {
      stream.destroy();
    }
  } finally {
    zip.close();
  }
}
