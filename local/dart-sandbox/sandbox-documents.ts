import * as iconv from 'iconv-lite';
import { LRUCache } from 'lru-cache';
import { ZipFile } from 'yazl';
import { Prng, hashString } from './prng';
import { type DocumentSize, type DocumentSubject, generateDocument } from './sandbox-document-content';

export type { DocumentSize, DocumentSubject } from './sandbox-document-content';

export type DocumentEncoding = 'utf-8' | 'euc-kr';

/** Ways a document's markup is broken on purpose, as real filings are. */
export type MarkupDefect = 'unclosed-p' | 'stray-ampersand' | 'bare-br' | 'mismatched-case' | 'html-entity';

/**
 * What stands out about a document, most telling first: 'missing' (014), 'euc-kr', 'malformed',
 * else its size; 'custom' when a test set it.
 */
export type SandboxDocumentKind = 'missing' | 'euc-kr' | 'malformed' | DocumentSize | 'custom';

/** What the sandbox serves from document.xml for one filing. */
export interface SandboxDocument {
  kind: SandboxDocumentKind;
  /** The main document `{rcept_no}.xml` as text, before encoding; absent when the answer is 014. */
  xml?: string;
  encoding: DocumentEncoding;
  /** Size class of the main document; absent for missing and custom documents. */
  size?: DocumentSize;
  /** Empty for well-formed markup. */
  defects: readonly MarkupDefect[];
  /** Names of the other ZIP entries, e.g. `20260310000123_00760.xml`. */
  attachments: readonly string[];
}

interface Served {
  document: SandboxDocument;
  /** ZIP entries in archive order. */
  files: ReadonlyArray<{ name: string; xml: string }>;
}

/** Shares of generated documents; the rest are well-formed UTF-8. */
const MISSING_RATE = 0.03;
const EUC_KR_RATE = 0.1;
const MALFORMED_RATE = 0.12;
/** Filings without an attachment of their own form that still carry one. */
const STRAY_ATTACHMENT_RATE = 0.04;
/** In the order they are applied: each later edit must still find the markup it looks for. */
const DEFECTS: readonly MarkupDefect[] = ['bare-br', 'stray-ampersand', 'html-entity', 'mismatched-case', 'unclosed-p'];
/** Generated documents are cheap to make again, so only the recently asked ones are kept. */
const DOCUMENT_CACHE_CHARS = 32 * 1024 * 1024;
const ZIP_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * The documents behind document.xml: generated on first request from the seed and the filing
 * (so 100,000 filings cost nothing up front and the same seed serves the same documents), kept in
 * bounded caches, and replaced wholesale where a test set its own.
 */
export class SandboxDocuments {
  private readonly overrides = new Map<string, Served>();
  private readonly generated = new LRUCache<string, Served>({
    maxSize: DOCUMENT_CACHE_CHARS,
    sizeCalculation: (served) => served.files.reduce((sum, file) => sum + file.xml.length, 1),
  });
  private readonly zips = new LRUCache<string, Buffer>({ maxSize: ZIP_CACHE_BYTES, sizeCalculation: (zip) => Math.max(1, zip.length) });

  constructor(
    private readonly seed: number,
    /** The filing and company a receipt number stands for; undefined when there is no such filing. */
    private readonly subjectOf: (rceptNo: string) => DocumentSubject | undefined,
  ) {}

  /** What document.xml serves for `rceptNo`; undefined when no filing and no set document has it. */
  describe(rceptNo: string): SandboxDocument | undefined {
    return this.served(rceptNo)?.document;
  }

  /** The document.xml archive; null when the answer is 014 (no file, or no such filing). */
  async zip(rceptNo: string): Promise<Buffer | null> {
    const served = this.served(rceptNo);
    if (served === undefined || served.files.length === 0) return null;
    const cached = this.zips.get(rceptNo);
    if (cached !== undefined) return cached;
    const archive = await buildZip(served);
    // A document set while this one was compressed wins.
    if (this.served(rceptNo) === served) this.zips.set(rceptNo, archive);
    return archive;
  }

  /** Serves `xml` (in `encoding`) as the whole document of `rceptNo` from now on; null answers 014. */
  set(rceptNo: string, xml: string | null, encoding: DocumentEncoding = 'utf-8'): SandboxDocument {
    const document: SandboxDocument =
      xml === null
        ? { kind: 'missing', encoding, defects: [], attachments: [] }
        : { kind: 'custom', xml, encoding, defects: [], attachments: [] };
    this.overrides.set(rceptNo, { document, files: xml === null ? [] : [{ name: `${rceptNo}.xml`, xml }] });
    this.zips.delete(rceptNo);
    return document;
  }

  private served(rceptNo: string): Served | undefined {
    const override = this.overrides.get(rceptNo);
    if (override !== undefined) return override;
    let served = this.generated.get(rceptNo);
    if (served === undefined) {
      const subject = this.subjectOf(rceptNo);
      if (subject === undefined) return undefined;
      served = this.generate(rceptNo, subject);
      this.generated.set(rceptNo, served);
    }
    return served;
  }

  private generate(rceptNo: string, subject: DocumentSubject): Served {
    // One generator per filing: the document does not depend on which documents were asked before.
    const rng = new Prng(this.seed ^ hashString(rceptNo));
    if (rng.chance(MISSING_RATE)) return { document: { kind: 'missing', encoding: 'utf-8', defects: [], attachments: [] }, files: [] };
    const encoding: DocumentEncoding = rng.chance(EUC_KR_RATE) ? 'euc-kr' : 'utf-8';
    const malformed = rng.chance(MALFORMED_RATE);
    const generated = generateDocument(rng, subject, encoding === 'euc-kr' ? 'EUC-KR' : 'utf-8');
    if (generated.attachments.length === 0 && rng.chance(STRAY_ATTACHMENT_RATE)) {
      generated.attachments.push({
        suffix: '_00760',
        xml: generated.xml.replace(
          /<BODY>[\s\S]*<\/BODY>/,
          '<BODY><SECTION-1><TITLE>첨부서류</TITLE><P>해당사항 없음</P></SECTION-1></BODY>',
        ),
      });
    }
    const { xml, defects } = malformed ? breakMarkup(generated.xml, rng) : { xml: generated.xml, defects: [] };
    const attachments = generated.attachments.map((attachment) => ({ name: `${rceptNo}${attachment.suffix}.xml`, xml: attachment.xml }));
    const main = { name: `${rceptNo}.xml`, xml };
    const kind: SandboxDocumentKind = encoding === 'euc-kr' ? 'euc-kr' : malformed ? 'malformed' : generated.size;
    return {
      document: { kind, xml, encoding, size: generated.size, defects, attachments: attachments.map((file) => file.name) },
      // The main document is not always the first entry: readers must look it up by name.
      files: rng.chance(0.5) ? [main, ...attachments] : [...attachments, main],
    };
  }
}

async function buildZip(served: Served): Promise<Buffer> {
  const zip = new ZipFile();
  for (const file of served.files) {
    const bytes = served.document.encoding === 'euc-kr' ? iconv.encode(file.xml, 'euc-kr') : Buffer.from(file.xml, 'utf8');
    zip.addBuffer(bytes, file.name);
  }
  zip.end();
  const parts: Buffer[] = [];
  for await (const part of zip.outputStream as AsyncIterable<Buffer>) parts.push(part);
  return Buffer.concat(parts);
}

/**
 * Breaks well-formed markup the ways real filings are broken, two to four of them at a time. Every
 * defect is applied at least once, so a strict XML parser rejects the result whichever were chosen.
 */
function breakMarkup(xml: string, rng: Prng): { xml: string; defects: MarkupDefect[] } {
  const shuffled = [...DEFECTS];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
  }
  const chosen = shuffled.slice(0, rng.int(2, 4));
  const defects = DEFECTS.filter((defect) => chosen.includes(defect));
  // Only the body: the header elements stay readable.
  const bodyAt = xml.indexOf('<BODY>');
  const head = xml.slice(0, bodyAt);
  let body = xml.slice(bodyAt);
  for (const defect of defects) {
    switch (defect) {
      case 'bare-br':
        // A line break inside a paragraph, never closed.
        body = replaceSome(body, /<P>([^<]*?)\. /g, (_, text: string) => `<P>${text}.<BR>`, rng, 0.4);
        if (!body.includes('<BR>')) body = body.replace('</P>', '<BR></P>');
        break;
      case 'stray-ampersand':
        body = replaceSome(body, /&amp;/g, () => '&', rng, 0.7);
        body = body.replace('<P>', '<P>R&D 및 M&A 관련 사항은 다음과 같습니다. ');
        break;
      case 'html-entity':
        // HTML's &nbsp; is not an XML entity.
        body = replaceSome(body, /<TD>/g, () => '<TD>&nbsp;', rng, 0.2);
        break;
      case 'mismatched-case':
        body = replaceSome(body, /<\/TD>/g, () => '</td>', rng, 0.3);
        body = replaceSome(body, /<P>/g, () => '<p>', rng, 0.2);
        break;
      case 'unclosed-p':
        body = replaceSome(body, /<\/P>/g, () => '', rng, 0.3);
        break;
    }
  }
  return { xml: head + body, defects };
}

/** Replaces each match with probability `share`, and the first one always, so the edit happens at least once. */
function replaceSome(text: string, pattern: RegExp, replacement: (...groups: string[]) => string, rng: Prng, share: number): string {
  let first = true;
  return text.replace(pattern, (...args: unknown[]) => {
    const apply = first || rng.chance(share);
    first = false;
    return apply ? replacement(...(args.slice(0, -2) as string[])) : (args[0] as string);
  });
}
