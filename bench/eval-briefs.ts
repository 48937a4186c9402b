/**
 * `npm run eval:briefs -- [folder] [--out file.md]`: runs the analysis's reading and the built-in
 * analyzer over every real filing in a folder (default ../shared/real) and prints one table: the
 * family, the facts found, the one-liner, for audit reports whether the opinion is stated, for the
 * model path the characters sent and whether the key sections are inside, and the time and heap
 * each document took. Checks that need no judgement are counted at the end and fail the run:
 * every audit report's opinion stated, tag and text agreeing on it, no markup in any text, result
 * or prompt, the figures agreeing with the filer's own SUMMARY totals, the annual report's model
 * text holding its summary financial information and its audit opinion.
 *
 * Files read: .xml (DART markup or the exchange's HTML), .zip and .bin (document.xml archives: every
 * .xml member), .kt and other sources embedding a <DOCUMENT>…</DOCUMENT>. Report names come from
 * list.json pages found in the folder (rcept_no → report_nm), else the document's own name.
 * Run it with --expose-gc (the npm script does) for the heap figures.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, extname, join, relative, resolve } from 'node:path';
import { buildUserPrompt, SYSTEM_PROMPT } from '../src/analysis/analyzers/prompts';
import { BuiltinAnalyzer } from '../src/analysis/analyzers/builtin.analyzer';
import type { AnalysisInput } from '../src/analysis/analyzers/analyzer';
import { analysisInput } from '../src/analysis/brief/filing-brief';
import { type DartDocument, documentText, parseDartDocument } from '../src/analysis/document/dart-document';
import { decodeDocument } from '../src/analysis/document/document-encoding';
import { readZipEntry } from '../src/analysis/document/zip-entries';
import { readOpinionFromText } from '../src/analysis/facts/audit-opinion';
import { toWon } from '../src/analysis/facts/amounts';
import type { FilingFacts, FinancialItem } from '../src/analysis/facts/filing-facts';

const DEFAULT_FOLDER = resolve(__dirname, '../../../shared/real');
const MARKUP = /&[A-Za-z][A-Za-z0-9]*;|&#x?[0-9A-Fa-f]+;|<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^>]*)?>/;

interface Source {
  path: string;
  /** The bytes of one document file. */
  bytes: Buffer;
  rceptNo: string;
  /** The filing's main document (not an attachment such as {rcept_no}_00760.xml): the list's report name is its. */
  main: boolean;
}

interface Row {
  file: string;
  family: string;
  facts: string;
  oneLiner: string;
  opinionStated: string;
  modelChars: number;
  keySections: string;
  summaryCheck: string;
  ms: number;
  heapMb: number;
  checks: string[];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const outAt = args.indexOf('--out');
  const out = outAt === -1 ? null : args[outAt + 1];
  const folder = resolve(args.find((arg, index) => !arg.startsWith('--') && (outAt === -1 || index !== outAt + 1)) ?? DEFAULT_FOLDER);
  const files = walk(folder);
  const names = reportNames(files);
  const sources = (await Promise.all(files.map((file) => sourcesOf(file)))).flat();
  const rows: Row[] = [];
  const failures: string[] = [];
  for (const source of sources) {
    try {
      rows.push(await evaluate(source, names, folder));
    } catch (error) {
      failures.push(`${relative(folder, source.path)}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const report = render(folder, rows, failures);
  process.stdout.write(report);
  if (out !== null) writeFileSync(out, report);
  if (failures.length > 0 || rows.some((row) => row.checks.length > 0)) process.exitCode = 1;
}

function walk(folder: string): string[] {
  return readdirSync(folder)
    .sort()
    .flatMap((name) => {
      const path = join(folder, name);
      return statSync(path).isDirectory() ? walk(path) : [path];
    });
}

/** rcept_no → report_nm from every list.json page in the folder (the names the service is given). */
function reportNames(files: readonly string[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const file of files.filter((path) => extname(path) === '.json')) {
    try {
      const page = JSON.parse(readFileSync(file, 'utf8')) as { list?: Array<{ rcept_no?: string; report_nm?: string }> };
      for (const item of page.list ?? []) if (item.rcept_no && item.report_nm) names.set(item.rcept_no, item.report_nm.trim());
    } catch {
      // Not a list page.
    }
  }
  return names;
}

async function sourcesOf(path: string): Promise<Source[]> {
  const extension = extname(path).toLowerCase();
  const rceptNo = /(\d{14})/.exec(basename(path))?.[1] ?? basename(path, extension);
  const bytes = readFileSync(path);
  if (extension === '.zip' || extension === '.bin') {
    if (bytes.readUInt32LE(0) !== 0x04034b50) return [];
    const sources: Source[] = [];
    for (let index = 0; ; index++) {
      let name: string | null = null;
      const entry = await readZipEntry(
        bytes,
        (entries) => {
          const xml = entries.filter((candidate) => candidate.name.toLowerCase().endsWith('.xml'));
          const picked = xml[index] ?? entries[0];
          name = xml[index] === undefined ? null : picked.name;
          return picked;
        },
        64 * 1024 * 1024,
      );
      if (name === null) break;
      sources.push({
        path: `${path}#${name}`,
        bytes: entry.bytes,
        rceptNo: /(\d{14})/.exec(name)?.[1] ?? rceptNo,
        main: /^\d{14}\.xml$/i.test(basename(name)),
      });
    }
    return sources;
  }
  if (extension === '.xml' || extension === '.html') {
    const head = bytes.subarray(0, 2048).toString('latin1');
    // A corpCode.xml or any XML that is no filing.
    if (/<result>/i.test(head) && !/<DOCUMENT|<html/i.test(head)) return [];
    return [{ path, bytes, rceptNo, main: !/_\d{5}\.xml$/i.test(basename(path)) }];
  }
  if (extension === '.kt' || extension === '.py' || extension === '.ts') {
    const text = bytes.toString('utf8');
    const embedded = /<DOCUMENT[\s>][\s\S]*?<\/DOCUMENT>/.exec(text);
    return embedded === null ? [] : [{ path, bytes: Buffer.from(embedded[0], 'utf8'), rceptNo, main: true }];
  }
  return [];
}

async function evaluate(source: Source, names: ReadonlyMap<string, string>, folder: string): Promise<Row> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const baseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  const sample = (): void => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  };
  const started = performance.now();
  const { text: markup } = decodeDocument(source.bytes);
  sample();
  const document = parseDartDocument(markup);
  sample();
  const { corpName, reportName } = filingNames(document, markup, source, names);
  const input = analysisInput({ rceptNo: source.rceptNo, corpName, reportName, rceptDt: '20250101' }, document);
  sample();
  const output = await new BuiltinAnalyzer().analyze(input);
  sample();
  const ms = performance.now() - started;
  const prompt = buildUserPrompt(input);
  const checks: string[] = [];

  const leaks = [
    ['text', documentText(document)],
    ['model text', input.text],
    ['prompt', prompt],
    ['result', JSON.stringify(output.result)],
  ].filter(([, text]) => MARKUP.test(text));
  for (const [where, text] of leaks) checks.push(`markup in the ${where}: ${JSON.stringify(MARKUP.exec(text)?.[0])}`);

  const { facts } = input;
  let opinionStated = '';
  if (facts.family === 'audit') {
    const stated = facts.opinion !== null && output.oneLiner.includes(`감사의견 ${facts.opinion.value}`);
    opinionStated = stated ? 'yes' : 'NO';
    if (!stated) checks.push('the one-liner does not state the audit opinion');
    const fromText = readOpinionFromText(document);
    if (facts.opinion !== null && fromText !== null && fromText !== facts.opinion.value) {
      checks.push(`the opinion's tag (${facts.opinion.value}) and its text (${fromText}) disagree`);
    }
    if (fromText !== null) opinionStated += facts.opinion?.source === 'tag' ? ' (tag = text)' : ' (text)';
  }
  // The SUMMARY is the filer's own extraction and is sometimes wrong: a mismatch is reported, to be read against the statement.
  const summaryCheck = crossCheck(document, facts);
  const keySections = keySectionsInside(facts, input);
  if (keySections.includes('missing')) checks.push(`model text: ${keySections}`);

  return {
    file: relative(folder, source.path),
    family: facts.family === 'event' ? `event/${facts.eventKind}` : facts.family,
    facts: describeFacts(facts),
    oneLiner: output.oneLiner,
    opinionStated,
    modelChars: SYSTEM_PROMPT.length + prompt.length,
    keySections,
    summaryCheck,
    ms,
    heapMb: (peak - baseline) / 1e6,
    checks,
  };
}

/** The report name the disclosure list gives, else the document's own (an exchange form's HTML title names it). */
function filingNames(
  document: DartDocument,
  markup: string,
  source: Source,
  names: ReadonlyMap<string, string>,
): { corpName: string; reportName: string } {
  const title = /<title>([^<]*)<\/title>/i.exec(markup)?.[1].split('/') ?? [];
  const corpName = document.company || title[0]?.trim() || '(회사)';
  const listed = source.main ? names.get(source.rceptNo) : undefined;
  const reportName = listed ?? (document.name || title[1]?.trim() || document.lines[0]?.text || '(공시)');
  return { corpName, reportName };
}

function describeFacts(facts: FilingFacts): string {
  const parts: string[] = [];
  if (facts.period !== null) parts.push(`${facts.period.from ?? ''}~${facts.period.to}`);
  if (facts.opinion !== null) parts.push(`opinion ${facts.opinion.value} (${facts.opinion.source})`);
  if (facts.auditor !== null) parts.push(facts.auditor);
  const items: Record<FinancialItem, string> = { revenue: 'rev', operating_profit: 'op', net_profit: 'net', total_assets: 'assets' };
  const lines = (Object.keys(items) as FinancialItem[])
    .map((item) => {
      const terms = facts.financials.filter((fact) => fact.item === item).map((fact) => (fact.term === 'current' ? 'c' : 'p'));
      return terms.length === 0 ? null : `${items[item]}(${terms.join('')})`;
    })
    .filter((part): part is string => part !== null);
  if (lines.length > 0) parts.push(`${lines.join(' ')} ${facts.financials[0].unit}`);
  if (facts.event.length > 0) parts.push(`form: ${facts.event.map((fact) => fact.name).join(', ')}`);
  return parts.join('; ') || '-';
}

/**
 * The filer's SUMMARY states total sales and assets (TOT_SALES, TOT_ASSETS) in 백만원 (older reports:
 * 억원): the revenue and assets read from the statements must round to them.
 */
function crossCheck(document: DartDocument, facts: FilingFacts): string {
  const results: string[] = [];
  for (const [code, item] of [
    ['TOT_SALES', 'revenue'],
    ['TOT_ASSETS', 'total_assets'],
  ] as const) {
    const stated = Number(document.extractions.get(code));
    const fact = facts.financials.find((candidate) => candidate.item === item && candidate.term === 'current');
    if (!Number.isFinite(stated) || stated === 0 || fact === undefined) continue;
    const won = toWon(fact.value, fact.unit)!;
    const agrees = [1e6, 1e8].some((scale) => Math.abs(won / scale - stated) <= 1);
    results.push(`${item === 'revenue' ? 'rev' : 'assets'} ${agrees ? 'ok' : `MISMATCH (${won} against ${stated})`}`);
  }
  return results.join(', ');
}

/** For a periodic report: its summary financial information and audit opinion in the model's text; for an audit report: the auditor's opinion paragraph. */
function keySectionsInside(facts: FilingFacts, input: AnalysisInput): string {
  if (!input.truncated) return 'whole';
  if (facts.family === 'periodic') {
    const summary = /요약\s*재무\s*정보/.test(input.text) && /매출액/.test(input.text);
    const opinion = /감사의견/.test(input.text) && (facts.opinion === null || input.text.includes(facts.opinion.value));
    return [summary ? 'summary financials' : 'summary financials missing', opinion ? 'audit opinion' : 'audit opinion missing'].join(', ');
  }
  if (facts.family === 'audit')
    return /감사의견|의견거절|의견을\s*표명/.test(input.text) ? 'opinion paragraph' : 'opinion paragraph missing';
  return 'head and tail';
}

function render(folder: string, rows: readonly Row[], failures: readonly string[]): string {
  const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const lines = [
    `Folder: ${relative(process.cwd(), folder) || '.'}`,
    '',
    '| file | family | facts found | one-liner | opinion stated | chars to a model | key sections | SUMMARY check | ms | heap MB |',
    '| --- | --- | --- | --- | --- | ---: | --- | --- | ---: | ---: |',
    ...rows.map(
      (row) =>
        `| ${cell(row.file)} | ${row.family} | ${cell(row.facts)} | ${cell(row.oneLiner)} | ${row.opinionStated} | ${row.modelChars.toLocaleString('en-US')} | ${row.keySections} | ${cell(row.summaryCheck)} | ${row.ms.toFixed(0)} | ${row.heapMb.toFixed(1)} |`,
    ),
    '',
  ];
  const audits = rows.filter((row) => row.family === 'audit');
  const slowest = [...rows].sort((a, b) => b.ms - a.ms)[0];
  const hungriest = [...rows].sort((a, b) => b.heapMb - a.heapMb)[0];
  lines.push(
    `Documents read: ${rows.length}; failed to read: ${failures.length}.`,
    `Audit reports: ${audits.length}; opinion stated in the one-liner: ${audits.filter((row) => row.opinionStated.startsWith('yes')).length}; tag and text agreeing where both exist: ${audits.filter((row) => row.opinionStated.includes('tag = text')).length}.`,
    `SUMMARY cross-checks: ${rows.filter((row) => row.summaryCheck !== '').length} documents, ${rows.filter((row) => row.summaryCheck.includes('MISMATCH')).length} with a mismatch.`,
    slowest === undefined
      ? ''
      : `Slowest: ${slowest.file}, ${slowest.ms.toFixed(0)} ms. Most heap above idle: ${hungriest.file}, ${hungriest.heapMb.toFixed(1)} MB.`,
    '',
  );
  const problems = [...failures, ...rows.flatMap((row) => row.checks.map((check) => `${row.file}: ${check}`))];
  lines.push(
    problems.length === 0 ? 'Every check passed.' : `Checks that failed:\n${problems.map((problem) => `- ${problem}`).join('\n')}`,
    '',
  );
  return lines.join('\n');
}

void main();
