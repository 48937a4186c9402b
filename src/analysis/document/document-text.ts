import { type DartDocument, documentText, parseDartDocument } from './dart-document';
import { type DocumentEncoding, decodeDocument } from './document-encoding';
import { DocumentArchiveError, type ZipEntry, readZipEntry } from './zip-entries';

export { type DocumentEncoding } from './document-encoding';
export { MAX_MODEL_CHARS, OMISSION_MARKER, fitToModel } from './fit-to-model';
export { type DartDocument, documentText, markupToText, parseDartDocument } from './dart-document';
export { DocumentArchiveError } from './zip-entries';

/**
 * The largest document file inflated. The main documents of real filings are up to several MB;
 * a file many times that is broken or hostile, and its text would be cut for the model anyway.
 */
export const MAX_DOCUMENT_FILE_BYTES = 64 * 1024 * 1024;

export interface FilingDocument {
  /** The main document, read the way DART structures it. */
  document: DartDocument;
  /** The ZIP entry read: `{rcept_no}.xml`, or the largest .xml when that is absent. */
  entryName: string;
  encoding: DocumentEncoding;
}

/**
 * A filing's main document from the document.xml ZIP: the entry `{rcept_no}.xml`
 * (attachments such as `{rcept_no}_00760.xml` are not part of it), or the largest .xml entry when
 * the archive has no entry of that name. The encoding is detected (BOM, declaration, bytes) and the
 * markup read by a tolerant parser, so bad markup never fails; only an unreadable archive throws a
 * DocumentArchiveError (not a ZIP, cut short, corrupt, no .xml entry, entry over MAX_DOCUMENT_FILE_BYTES).
 */
export async function readFilingDocument(zip: Buffer, rceptNo: string): Promise<FilingDocument> {
  const { entry, bytes } = await readZipEntry(zip, (entries) => mainEntry(entries, rceptNo), MAX_DOCUMENT_FILE_BYTES);
  const { text: markup, encoding } = decodeDocument(bytes);
  return { document: parseDartDocument(markup), entryName: entry.name, encoding };
}

/** The plain text of a filing's main document (see readFilingDocument); `doc_length` is its length. */
export async function extractDocumentText(
  zip: Buffer,
  rceptNo: string,
): Promise<{ text: string; entryName: string; encoding: DocumentEncoding }> {
  const { document, entryName, encoding } = await readFilingDocument(zip, rceptNo);
  return { text: documentText(document), entryName, encoding };
}

function mainEntry(entries: readonly ZipEntry[], rceptNo: string): ZipEntry {
  const wanted = `${rceptNo}.xml`.toLowerCase();
  const xmlFiles = entries.filter((entry) => entry.name.toLowerCase().endsWith('.xml'));
  // Matched by base name: an archive could keep its files in a folder.
  const named = xmlFiles.find((entry) => baseName(entry.name).toLowerCase() === wanted);
  if (named !== undefined) return named;
  const largest = xmlFiles.reduce<ZipEntry | undefined>(
    (best, entry) => (best === undefined || entry.size > best.size ? entry : best),
    undefined,
  );
  if (largest === undefined) throw new DocumentArchiveError(`the archive of ${rceptNo} holds no .xml file`);
  return largest;
}

function baseName(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}
