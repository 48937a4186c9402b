import type { Client } from 'pg';
import { Prng } from '../local/dart-sandbox/prng';
import type { SeedReport } from './seed';

/** One public read, measured with a repeated URL (cache hit) and with a new URL per request (cache miss). */
export interface Scenario {
  /** Short name for the tables. */
  name: string;
  /** The URL every hit request asks for. */
  hitUrl: string;
  /** URLs for misses, in order; with `bust` each is also made unique with `_=<n>`. */
  missUrls: string[];
  bust: boolean;
  /** How the misses avoid the cache, for the report. */
  missHow: string;
  /** For the query plan: one uncached request whose SQL is captured and explained. */
  planUrl: string;
  planNote: string;
  /** More EXPLAINs of the same captured statements: other parameters, or a session setting. */
  planVariants?: PlanVariant[];
}

export interface PlanVariant {
  note: string;
  params?: (captured: unknown[]) => unknown[];
  /** Run before the EXPLAIN on the bench's own connection, and `RESET` afterwards (e.g. `max_parallel_workers_per_gather = 0`). */
  setting?: { name: string; value: string };
}

function shuffle<T>(items: T[], rng: Prng): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/** Hangul syllables used to make up search words that users type but no name contains. */
const EXTRA_SYLLABLES = [
  ...'가나다라마바사아자차카타파하고노도로모보소오조초코토포호구누두루무부수우주추쿠투푸후기니디리미비시이지치키티피히',
];

/**
 * Search terms, all different after trimming and lower-casing (the handler's own
 * cache key): parts of real names first, then stock codes, then made-up words.
 */
function searchTerms(report: SeedReport, rng: Prng, wanted: number): string[] {
  const terms = new Set<string>();
  const names = shuffle(
    [...report.listed, ...report.unlisted].map((filer) => filer.corpName),
    rng,
  );
  for (const length of [2, 3, 4]) {
    for (const name of names) {
      if (name.length < length) continue;
      const start = Math.floor(rng.next() * (name.length - length + 1));
      terms.add(name.slice(start, start + length).toLowerCase());
    }
  }
  for (const filer of report.listed) terms.add(filer.stockCode);
  while (terms.size < wanted) {
    const length = rng.int(2, 3);
    let word = '';
    for (let i = 0; i < length; i++) word += rng.pick(EXTRA_SYLLABLES);
    terms.add(word);
    if (terms.size >= EXTRA_SYLLABLES.length ** 2 + EXTRA_SYLLABLES.length ** 3) break;
  }
  return shuffle(
    [...terms].filter((term) => term.trim() !== '' && term === term.trim()),
    rng,
  );
}

export interface ScenarioInputs {
  report: SeedReport;
  /** Companies the disclosure system knows (the sandbox's listed ones), read once before the measurements. */
  companyCodes: string[];
  /** How many distinct search terms to prepare. */
  searchTermCount: number;
}

/** The public reads of the brief, with their URL pools built from the seeded data. */
export async function buildScenarios(client: Client, inputs: ScenarioInputs): Promise<Scenario[]> {
  const { report } = inputs;
  const rng = new Prng(report.options.seed + 10);

  // 12 % of the filings, and at least 50,000: each miss of `disclosures/{rceptNo}` asks for a receipt number not asked
  // before, and at 100,000 filings a fast machine asked for more than 12 % (the warm-up, one connection, the fixed rate and
  // their retries); how many it asks for at each size: docs/benchmarks-history.md, "Full collections and the HTTP cache".
  const samplePercent = Math.min(100, Math.max(12, (100 * 50_000) / report.options.filings));
  const rceptNos = shuffle(
    (
      await client.query<{ rcept_no: string }>('SELECT rcept_no FROM disclosures TABLESAMPLE SYSTEM ($1) REPEATABLE (7)', [samplePercent])
    ).rows.map((row) => row.rcept_no),
    rng,
  );
  const [busiest] = (
    await client.query<{ corp_code: string; corp_name: string; n: string }>(
      `SELECT corp_code, min(corp_name) AS corp_name, count(*) AS n FROM disclosures WHERE stock_code <> ''
       GROUP BY corp_code ORDER BY count(*) DESC LIMIT 1`,
    )
  ).rows;
  const [typical] = (
    await client.query<{ corp_code: string; n: string }>(
      `SELECT corp_code, n FROM (
         SELECT corp_code, count(*) AS n FROM disclosures WHERE stock_code <> '' GROUP BY corp_code
       ) c ORDER BY n OFFSET (SELECT count(DISTINCT corp_code) / 2 FROM disclosures WHERE stock_code <> '') LIMIT 1`,
    )
  ).rows;

  // Companies people look up: every listed one, plus a share of unlisted filers.
  const corpCodes = shuffle([...report.listed.map((f) => f.corpCode), ...report.unlisted.slice(0, 1_000).map((f) => f.corpCode)], rng);
  const listedCodes = shuffle(
    report.listed.map((f) => f.corpCode),
    rng,
  );

  // Date ranges: one day, three days, a week, a month (in business days), ending on every filing day.
  const days = report.days;
  const ranges: [string, string][] = [];
  for (let end = 0; end < days.length; end++) {
    for (const span of [1, 3, 5, 20]) {
      if (end - span + 1 >= 0) ranges.push([days[end - span + 1], days[end]]);
    }
  }
  shuffle(ranges, rng);
  const lastWeek: [string, string] = [days[Math.max(0, days.length - 6)], days[days.length - 2] ?? days[0]];
  const midWeek: [string, string] = [days[Math.max(0, Math.floor(days.length / 2) - 4)], days[Math.floor(days.length / 2)]];

  // The hit search: the commonest two-syllable start of a listed name, so the page is full (20 rows).
  const prefixes = new Map<string, number>();
  for (const filer of report.listed) {
    const prefix = filer.corpName.slice(0, 2);
    if (/^[가-힣]{2}$/.test(prefix)) prefixes.set(prefix, (prefixes.get(prefix) ?? 0) + 1);
  }
  const hitTerm =
    [...prefixes.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? report.listed[0].corpName.slice(0, 2);
  const fullDay = days[days.length - 2] ?? days[0];
  const fullDayCount = Number(
    (await client.query<{ n: string }>('SELECT count(*) AS n FROM disclosures WHERE rcept_dt = $1', [fullDay])).rows[0].n,
  );
  const terms = searchTerms(report, rng, inputs.searchTermCount).filter((term) => term !== hitTerm.toLowerCase());
  const companyCodes = shuffle([...inputs.companyCodes], rng);

  const d = '/api/v1/disclosures';
  return [
    {
      name: 'disclosures/recent',
      hitUrl: `${d}/recent`,
      missUrls: [`${d}/recent`],
      bust: true,
      missHow: 'default limit (10); the URL made unique with an extra `_=<n>` parameter, which validation strips',
      planUrl: `${d}/recent`,
      planNote: 'default limit 10',
    },
    {
      name: 'disclosures/{rceptNo}',
      hitUrl: `${d}/${rceptNos[0]}`,
      missUrls: rceptNos.slice(1).map((no) => `${d}/${no}`),
      bust: false,
      missHow: `a different existing filing per request (${(rceptNos.length - 1).toLocaleString('en-US')} sampled receipt numbers)`,
      planUrl: `${d}/${rceptNos[1]}`,
      planNote: 'an existing filing',
    },
    {
      name: 'disclosures?corpCode=',
      hitUrl: `${d}?corpCode=${busiest.corp_code}`,
      missUrls: corpCodes.map((code) => `${d}?corpCode=${code}`),
      bust: true,
      missHow: `${corpCodes.length.toLocaleString('en-US')} companies in turn (every listed one and 1,000 unlisted), each URL also made unique with \`_=<n>\``,
      planUrl: `${d}?corpCode=${busiest.corp_code}`,
      planNote: `the busiest filer (${busiest.corp_code}, ${Number(busiest.n).toLocaleString('en-US')} filings); default limit 50`,
    },
    {
      name: 'disclosures?beginDate=&endDate=',
      hitUrl: `${d}?beginDate=${lastWeek[0]}&endDate=${lastWeek[1]}`,
      missUrls: ranges.map(([begin, end]) => `${d}?beginDate=${begin}&endDate=${end}`),
      bust: true,
      missHow: `${ranges.length.toLocaleString('en-US')} ranges of 1, 3, 5 and 20 filing days ending on every filing day, each URL also made unique with \`_=<n>\``,
      planUrl: `${d}?beginDate=${midWeek[0]}&endDate=${midWeek[1]}`,
      planNote: `a week in the middle of the data (${midWeek[0]}..${midWeek[1]}); default limit 50`,
    },
    {
      name: 'disclosures?hasSummary=true',
      hitUrl: `${d}?hasSummary=true`,
      missUrls: [`${d}?hasSummary=true`],
      bust: true,
      missHow: 'the only filter; the URL made unique with `_=<n>`',
      planUrl: `${d}?hasSummary=true`,
      planNote: 'limit 20',
    },
    {
      name: 'disclosures?hasSummary=true&corpCode=',
      hitUrl: `${d}?hasSummary=true&corpCode=${busiest.corp_code}`,
      missUrls: listedCodes.map((code) => `${d}?hasSummary=true&corpCode=${code}`),
      bust: true,
      missHow: `${listedCodes.length.toLocaleString('en-US')} listed companies in turn, each URL also made unique with \`_=<n>\``,
      planUrl: `${d}?hasSummary=true&corpCode=${typical.corp_code}`,
      planNote: `a typical listed company (${typical.corp_code}, ${Number(typical.n).toLocaleString('en-US')} filings); limit 20`,
    },
    {
      name: 'stocks/search?query=',
      hitUrl: `/api/v1/stocks/search?query=${encodeURIComponent(hitTerm)}`,
      missUrls: terms.map((term) => `/api/v1/stocks/search?query=${encodeURIComponent(term)}`),
      bust: false,
      missHow: `a different search term per request (${terms.length.toLocaleString('en-US')} terms: parts of company names, stock codes, made-up words), so neither the HTTP cache nor the handler's 10-minute cache can answer`,
      planUrl: `/api/v1/stocks/search?query=${encodeURIComponent(hitTerm)}`,
      planNote: `the commonest two-syllable start of a listed name (${hitTerm})`,
    },
    {
      name: 'stocks/active',
      hitUrl: '/api/v1/stocks/active',
      missUrls: ['/api/v1/stocks/active'],
      bust: true,
      missHow: 'default limit (8); the URL made unique with `_=<n>`',
      planUrl: '/api/v1/stocks/active',
      planNote: `today (${report.today}, ${report.counts['filings dated today (KST)']} filings)`,
      planVariants: [
        {
          note: `the same statement for the last full business day (${fullDay}, ${fullDayCount.toLocaleString('en-US')} filings): what it costs at the end of a busy day`,
          params: (captured) => [fullDay, ...captured.slice(1)],
        },
        {
          note: 'today again with `max_parallel_workers_per_gather = 0` (diagnosis only: the service runs with the server default)',
          setting: { name: 'max_parallel_workers_per_gather', value: '0' },
        },
      ],
    },
    {
      name: 'companies/{corpCode}',
      hitUrl: `/api/v1/companies/${companyCodes[0]}`,
      missUrls: companyCodes.map((code) => `/api/v1/companies/${code}`),
      bust: true,
      missHow: `${companyCodes.length.toLocaleString('en-US')} companies read once beforehand (fetched from the sandbox and stored), then in turn, each URL also made unique with \`_=<n>\`: every miss is the stored-company path`,
      planUrl: `/api/v1/companies/${companyCodes[1]}`,
      planNote: 'a stored company',
    },
  ];
}
