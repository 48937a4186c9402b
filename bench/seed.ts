import type { Client } from 'pg';
import { addDays, isWeekday, kstDate, startOfKstDay } from '../src/common/korea-time';
import { Prng } from '../local/dart-sandbox/prng';
import { LISTED_REPORTS, type ReportKind, UNLISTED_REPORTS } from '../local/dart-sandbox/sandbox-reports';
import { INSTITUTIONS, companyName, personName } from '../local/dart-sandbox/sandbox-vocabulary';

export interface SeedOptions {
  /** Listed companies in `stocks` (main and second board). */
  stocks: number;
  /** Unlisted filers (funds, private companies) that file too but are not stocks. */
  unlisted: number;
  /** Filings in `disclosures`, one analysis each. */
  filings: number;
  /** Filings dated today (Korea time). */
  filingsToday: number;
  /** Share of filings by listed companies. */
  listedShare: number;
  seed: number;
}

export const DEFAULT_SEED: SeedOptions = {
  stocks: 3_000,
  unlisted: 20_000,
  filings: 1_000_000,
  filingsToday: 700,
  listedShare: 0.72,
  seed: 2026,
};

export interface SeedFiler {
  corpCode: string;
  corpName: string;
  stockCode: string;
  market: 'Y' | 'K' | 'U';
}

export interface SeedReport {
  options: SeedOptions;
  today: string;
  firstDay: string;
  listed: SeedFiler[];
  unlisted: SeedFiler[];
  /** Filing days, oldest first (today last). */
  days: string[];
  timingsMs: Record<string, number>;
  counts: Record<string, number>;
  analyses: Record<string, number>;
  sizes: { relation: string; rows: number; total: string }[];
}

/** One-line summaries as the analyzer writes them (without the company name in front). */
const ONE_LINERS = [
  '유상증자로 운영자금 300억 원을 조달합니다',
  '3분기 영업이익이 전년 동기 대비 18% 늘었습니다',
  '자기주식 50만 주를 장내에서 취득합니다',
  '전환사채 200억 원어치를 사모로 발행합니다',
  '해외 고객사와 매출액의 12% 규모 공급계약을 맺었습니다',
  '주당 500원의 현금배당을 결정했습니다',
  '최대주주 지분이 0.8%포인트 줄었습니다',
  '임원이 보통주 1만 주를 장내 매수했습니다',
  '국민연금의 지분율이 5%를 넘었습니다',
  '자회사 지분을 추가로 취득해 지배력을 높입니다',
  '영업손실이 이어졌지만 적자 폭은 줄었습니다',
  '신규 공장 증설에 1,200억 원을 투자합니다',
  '감사의견 적정, 계속기업 불확실성 언급은 없습니다',
  '정기 주주총회를 3월 중순에 엽니다',
  '기관투자자 대상 기업설명회를 개최합니다',
  '무상증자로 주식 1주당 1주를 배정합니다',
  '계열사 간 합병으로 사업 구조를 단순화합니다',
  '소송 청구금액은 자기자본의 3% 수준입니다',
  '회사채 500억 원을 발행해 차입금을 상환합니다',
  '매출이 분기 최대치를 기록했습니다',
  '기재정정: 계약 기간과 금액을 바로잡았습니다',
  '공급계약이 해지되어 매출 감소가 예상됩니다',
  '타법인 주식 취득으로 신사업에 진출합니다',
  '자사주를 소각해 주당 가치를 높입니다',
  '대표이사가 변경되었습니다',
  '유형자산 처분으로 일회성 이익이 생깁니다',
  '순이익이 흑자로 돌아섰습니다',
  '투자설명서를 제출해 공모 절차를 시작합니다',
  '최대주주가 바뀌어 경영권이 이전됩니다',
  '분기 배당 기준일을 정했습니다',
];

const HOUR_MS = 60 * 60 * 1000;

/** Midnight of a KST calendar date, as epoch milliseconds. */
const kstMidnight = (ymd: string): number => startOfKstDay(ymd).getTime();

function uniqueCode(taken: Set<string>, make: () => string): string {
  for (;;) {
    const code = make();
    if (!taken.has(code)) {
      taken.add(code);
      return code;
    }
  }
}

/** Companies: listed ones (Y about a third, K the rest) and unlisted filers, with unique names and codes. */
function generateFilers(options: SeedOptions): { listed: SeedFiler[]; unlisted: SeedFiler[] } {
  const rng = new Prng(options.seed);
  const names = new Set<string>();
  const stockCodes = new Set<string>();
  // Above the sandbox's corp codes (from 00100000 up), so the two never collide.
  let corpCode = 1_000_000;
  const nextCorpCode = () => {
    corpCode += rng.int(1, 40);
    return String(corpCode).padStart(8, '0');
  };
  const uniqueName = (unlisted: boolean) => {
    for (let attempt = 0; ; attempt++) {
      const { name } = companyName(rng, unlisted);
      const trimmed = name.trim();
      const candidate = attempt < 20 ? trimmed : `${trimmed}${rng.int(2, 99)}`;
      if (!names.has(candidate)) {
        names.add(candidate);
        return candidate;
      }
    }
  };
  const listed: SeedFiler[] = [];
  for (let i = 0; i < options.stocks; i++) {
    listed.push({
      corpCode: nextCorpCode(),
      corpName: uniqueName(false),
      stockCode: uniqueCode(stockCodes, () => `${rng.digits(5)}0`),
      market: rng.chance(0.32) ? 'Y' : 'K',
    });
  }
  const unlisted: SeedFiler[] = [];
  for (let i = 0; i < options.unlisted; i++) {
    unlisted.push({ corpCode: nextCorpCode(), corpName: uniqueName(true), stockCode: '', market: 'U' });
  }
  return { listed, unlisted };
}

interface Day {
  dt: string;
  n: number;
  start: number;
  stepMs: number;
}

/**
 * Today (whatever the weekday) with `filingsToday` filings spread from midnight to
 * now, then business days backwards with 1,600 to 2,400 filings each until the total
 * is reached. Filing times run from 07:00 to 18:00 KST.
 */
function planDays(options: SeedOptions, now: Date): Day[] {
  const rng = new Prng(options.seed + 1);
  const today = kstDate(now);
  const todayCount = Math.min(options.filingsToday, options.filings);
  const sinceMidnight = Math.max(60_000, now.getTime() - kstMidnight(today));
  const days: Day[] = [{ dt: today, n: todayCount, start: kstMidnight(today), stepMs: sinceMidnight / (todayCount + 1) }];
  let left = options.filings - todayCount;
  for (let dt = addDays(today, -1); left > 0; dt = addDays(dt, -1)) {
    if (!isWeekday(dt)) continue;
    const n = Math.min(left, rng.int(1_600, 2_400));
    days.push({ dt, n, start: kstMidnight(dt) + 7 * HOUR_MS, stepMs: (11 * HOUR_MS) / n });
    left -= n;
  }
  return days.reverse();
}

/** Report kinds expanded by weight into slots, so a uniform pick follows the weights. */
function reportSlots(kinds: readonly ReportKind[], date: string): { name: string; filer: string; exchange: boolean; rm: string }[] {
  return kinds.flatMap((kind) =>
    Array.from({ length: kind.weight }, () => ({
      name: kind.title(date),
      filer: kind.filer,
      exchange: kind.exchange ?? false,
      rm: kind.rm ?? '',
    })),
  );
}

async function timed(timings: Record<string, number>, label: string, work: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await work();
  timings[label] = Math.round(performance.now() - started);
}

/**
 * Leaves PostgreSQL nothing to do in the background after bulk writes (autovacuum,
 * hint bits, a checkpoint flushing the new pages), so the measurements that follow
 * do not share the machine with it.
 */
export async function settleDatabase(client: Client): Promise<void> {
  await client.query('VACUUM ANALYZE');
  try {
    await client.query('CHECKPOINT');
  } catch {
    // Not allowed to every role on a configured server; only steadies the measurements.
  }
}

/**
 * Reads every table and index of the database into PostgreSQL's shared buffers (pg_prewarm),
 * when they fit: a server that has run for a while holds its working set there, while the
 * bench's misses each read a different company once and would otherwise measure the first
 * read of cold pages. Returns what it did, for the log.
 */
export async function prewarmDatabase(client: Client): Promise<string> {
  const { rows } = await client.query<{ database: string; buffers: string }>(
    "SELECT pg_database_size(current_database()) AS database, pg_size_bytes(current_setting('shared_buffers')) AS buffers",
  );
  const [databaseBytes, bufferBytes] = [Number(rows[0].database), Number(rows[0].buffers)];
  const size = `${(databaseBytes / 2 ** 20).toFixed(0)} MB of data, ${(bufferBytes / 2 ** 20).toFixed(0)} MB of shared buffers`;
  if (databaseBytes > bufferBytes * 0.9) return `not prewarmed: ${size}`;
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_prewarm');
  const warmed = await client.query<{ blocks: string }>(
    `SELECT coalesce(sum(pg_prewarm(c.oid)), 0) AS blocks FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i')`,
  );
  return `prewarmed ${Number(warmed.rows[0].blocks).toLocaleString('en-US')} blocks (${size})`;
}

/**
 * Fills a freshly migrated database in a few set-based statements: companies and
 * helper tables from arrays (`unnest`), filings and analyses with `generate_series`
 * and `random()` (seeded, so runs are alike), then VACUUM ANALYZE.
 */
export async function seedDatabase(client: Client, options: SeedOptions, log: (line: string) => void): Promise<SeedReport> {
  const timings: Record<string, number> = {};
  const now = new Date();
  const { listed, unlisted } = generateFilers(options);
  const days = planDays(options, now);
  const today = days[days.length - 1].dt;
  const listedSlots = reportSlots(LISTED_REPORTS, today);
  const unlistedSlots = reportSlots(UNLISTED_REPORTS, today);
  const peopleRng = new Prng(options.seed + 2);
  const people = Array.from({ length: 400 }, () => personName(peopleRng));

  await client.query('SET synchronous_commit TO off');
  await client.query(`SELECT setseed(${((options.seed % 1000) / 1000).toFixed(3)})`);

  await timed(timings, 'companies and helper tables', async () => {
    await client.query(
      `INSERT INTO stocks (corp_code, corp_name, stock_code, market_type)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])`,
      [listed.map((f) => f.corpCode), listed.map((f) => f.corpName), listed.map((f) => f.stockCode), listed.map((f) => f.market)],
    );
    const filers = [...listed, ...unlisted];
    await client.query(`CREATE TEMP TABLE bench_filers (
      idx int PRIMARY KEY, corp_code char(8) NOT NULL, corp_name text NOT NULL, stock_code text NOT NULL,
      corp_cls char(1) NOT NULL, market char(1) NOT NULL)`);
    await client.query(
      `INSERT INTO bench_filers
       SELECT i::int, c, n, s, CASE WHEN m = 'U' THEN 'E' ELSE m END, m
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS t(c, n, s, m, i)`,
      [filers.map((f) => f.corpCode), filers.map((f) => f.corpName), filers.map((f) => f.stockCode), filers.map((f) => f.market)],
    );
    await client.query(
      'CREATE TEMP TABLE bench_days (dt char(8) NOT NULL, n int NOT NULL, day_start timestamptz NOT NULL, step_ms float8 NOT NULL)',
    );
    await client.query('INSERT INTO bench_days SELECT * FROM unnest($1::text[], $2::int[], $3::timestamptz[], $4::float8[])', [
      days.map((d) => d.dt),
      days.map((d) => d.n),
      days.map((d) => new Date(d.start).toISOString()),
      days.map((d) => d.stepMs),
    ]);
    await client.query('CREATE TEMP TABLE bench_reports (listed boolean, slot int, name text, filer text, exchange boolean, rm text)');
    for (const [isListed, slots] of [
      [true, listedSlots],
      [false, unlistedSlots],
    ] as const) {
      await client.query(
        `INSERT INTO bench_reports SELECT $1, (i - 1)::int, n, f, e, r
         FROM unnest($2::text[], $3::text[], $4::boolean[], $5::text[]) WITH ORDINALITY AS t(n, f, e, r, i)`,
        [isListed, slots.map((s) => s.name), slots.map((s) => s.filer), slots.map((s) => s.exchange), slots.map((s) => s.rm)],
      );
    }
    await client.query(
      'CREATE TEMP TABLE bench_people AS SELECT (i - 1)::int AS idx, n AS name FROM unnest($1::text[]) WITH ORDINALITY AS t(n, i)',
      [people],
    );
    await client.query(
      'CREATE TEMP TABLE bench_institutions AS SELECT (i - 1)::int AS idx, n AS name FROM unnest($1::text[]) WITH ORDINALITY AS t(n, i)',
      [[...INSTITUTIONS]],
    );
    await client.query(
      'CREATE TEMP TABLE bench_phrases AS SELECT (i - 1)::int AS idx, p AS text FROM unnest($1::text[]) WITH ORDINALITY AS t(p, i)',
      [ONE_LINERS],
    );
    await client.query('ANALYZE bench_filers, bench_days, bench_reports, bench_people, bench_institutions, bench_phrases');
  });
  log(`seed: ${listed.length} stocks, ${unlisted.length} unlisted filers, ${days.length} filing days (${days[0].dt}..${today})`);

  // OFFSET 0 keeps the subquery (and its random() calls) evaluated once per generated row.
  await timed(timings, `disclosures (${options.filings.toLocaleString('en-US')} rows)`, () =>
    client.query(
      `INSERT INTO disclosures (rcept_no, corp_code, corp_name, stock_code, corp_cls, report_name, rcept_dt, submitter, remarks, created_at)
       SELECT g.dt || lpad(g.seq::text, 6, '0'),
              f.corp_code, f.corp_name, f.stock_code, f.corp_cls, r.name, g.dt,
              CASE r.filer WHEN 'insider' THEN p.name
                           WHEN 'holder' THEN CASE WHEN g.holder_is_person THEN p.name ELSE i.name END
                           ELSE f.corp_name END,
              CASE WHEN r.rm <> '' THEN r.rm
                   WHEN r.exchange AND f.market = 'Y' THEN '유'
                   WHEN r.exchange AND f.market = 'K' THEN '코'
                   ELSE '' END,
              g.day_start + (g.seq * g.step_ms) * interval '1 millisecond'
       FROM (
         SELECT d.dt, d.day_start, d.step_ms, s.seq,
                CASE WHEN random() < $1::float8 THEN 1 + floor($2::int * power(random(), 1.6))::int
                     ELSE $2::int + 1 + floor($3::int * power(random(), 1.3))::int END AS filer,
                random() AS pick,
                floor(random() * $4::int)::int AS person,
                floor(random() * $5::int)::int AS institution,
                random() < 0.4 AS holder_is_person
         FROM bench_days d CROSS JOIN LATERAL generate_series(1, d.n) AS s(seq)
         OFFSET 0
       ) g
       JOIN bench_filers f ON f.idx = g.filer
       JOIN bench_reports r ON r.listed = (g.filer <= $2::int)
        AND r.slot = floor(g.pick * CASE WHEN g.filer <= $2::int THEN $6::int ELSE $7::int END)::int
       JOIN bench_people p ON p.idx = g.person
       JOIN bench_institutions i ON i.idx = g.institution
       ORDER BY 1`,
      [options.listedShare, listed.length, unlisted.length, people.length, INSTITUTIONS.length, listedSlots.length, unlistedSlots.length],
    ),
  );
  log(`seed: disclosures inserted in ${timings[`disclosures (${options.filings.toLocaleString('en-US')} rows)`]} ms`);

  // The newest filings wait in the analysis queue; of the rest about 90 % are summarised.
  const [{ rcept_no: queueStart }] = (
    await client.query<{ rcept_no: string }>('SELECT rcept_no FROM disclosures ORDER BY rcept_no DESC OFFSET 199 LIMIT 1')
  ).rows;
  await timed(timings, 'analyses (one per filing)', () =>
    client.query(
      `INSERT INTO analyses (rcept_no, status, one_liner, result, doc_length, created_at, updated_at, completed_at)
       SELECT x.rcept_no, x.status,
              CASE WHEN x.status = 'COMPLETED' THEN left(x.corp_name || ', ' || ph.text, 100) END,
              CASE WHEN x.status = 'COMPLETED' THEN jsonb_build_object(
                'one_liner', left(x.corp_name || ', ' || ph.text, 100),
                'sentiment', (ARRAY['positive', 'neutral', 'negative'])[1 + floor(x.r2 * 3)::int],
                'key_points', jsonb_build_array(ph.text, x.report_name),
                'model', 'bench-seed') END,
              CASE WHEN x.status = 'PENDING' THEN NULL ELSE 300 + floor(x.r2 * 80000)::int END,
              x.created_at,
              CASE WHEN x.status = 'PENDING' THEN x.created_at ELSE x.created_at + interval '3 minutes' END,
              CASE WHEN x.status = 'COMPLETED' THEN x.created_at + interval '3 minutes' END
       FROM (
         SELECT d.rcept_no, d.corp_name, d.report_name, d.created_at, d.r2,
                CASE WHEN d.rcept_no >= $1 THEN 'PENDING'
                     WHEN d.r < 0.90 THEN 'COMPLETED'
                     WHEN d.r < 0.94 THEN 'PENDING'
                     ELSE 'UNAVAILABLE' END AS status,
                floor(d.r3 * $2::int)::int AS phrase
         FROM (SELECT d.*, random() AS r, random() AS r2, random() AS r3 FROM disclosures d OFFSET 0) d
       ) x
       JOIN bench_phrases ph ON ph.idx = x.phrase`,
      [queueStart, ONE_LINERS.length],
    ),
  );
  log(`seed: analyses inserted in ${timings['analyses (one per filing)']} ms`);

  await client.query('DROP TABLE bench_filers, bench_days, bench_reports, bench_people, bench_institutions, bench_phrases');
  await timed(timings, 'VACUUM ANALYZE and CHECKPOINT', () => settleDatabase(client));
  log(`seed: VACUUM ANALYZE and CHECKPOINT in ${timings['VACUUM ANALYZE and CHECKPOINT']} ms`);

  const counts: Record<string, number> = {};
  const count = async (label: string, sql: string, params: unknown[] = []) => {
    counts[label] = Number((await client.query<{ n: string }>(sql, params)).rows[0].n);
  };
  await count('stocks', 'SELECT count(*) AS n FROM stocks');
  await count('stocks on the main board (Y)', "SELECT count(*) AS n FROM stocks WHERE market_type = 'Y'");
  await count('disclosures', 'SELECT count(*) AS n FROM disclosures');
  await count('distinct corp_code in disclosures', 'SELECT count(DISTINCT corp_code) AS n FROM disclosures');
  await count('filings by listed companies', "SELECT count(*) AS n FROM disclosures WHERE stock_code <> ''");
  await count('filing days', 'SELECT count(DISTINCT rcept_dt) AS n FROM disclosures');
  await count('filings dated today (KST)', 'SELECT count(*) AS n FROM disclosures WHERE rcept_dt = $1', [today]);
  await count('most filings by one company', 'SELECT max(n) AS n FROM (SELECT count(*) AS n FROM disclosures GROUP BY corp_code) c');
  const analyses: Record<string, number> = {};
  for (const row of (
    await client.query<{ status: string; n: string }>('SELECT status, count(*) AS n FROM analyses GROUP BY status ORDER BY status')
  ).rows) {
    analyses[row.status] = Number(row.n);
  }
  const sizes = (
    await client.query<{ relation: string; rows: string; total: string }>(
      `SELECT c.relname AS relation, c.reltuples::bigint AS rows, pg_size_pretty(pg_total_relation_size(c.oid)) AS total
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname IN ('disclosures', 'analyses', 'stocks')
       ORDER BY pg_total_relation_size(c.oid) DESC`,
    )
  ).rows.map((row) => ({ relation: row.relation, rows: Number(row.rows), total: row.total }));

  return {
    options,
    today,
    firstDay: days[0].dt,
    listed,
    unlisted,
    days: days.map((d) => d.dt),
    timingsMs: timings,
    counts,
    analyses,
    sizes,
  };
}
