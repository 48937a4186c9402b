import { Pool } from 'pg';

/** How often the database is asked: the line is for a person waiting at a terminal. */
const POLL_MS = 1_000;

/**
 * What the README tour needs, read from the tables the service writes: a stock master that is
 * loaded (not empty, no stock sync running), and a filing of one of its companies with a
 * one-line summary (the tour reveals it and watches its company).
 */
const STATE = `SELECT
  (SELECT count(*) FROM stocks)::int AS listed,
  (SELECT count(*) FROM disclosures)::int AS filings,
  (SELECT count(*) FROM analyses WHERE status = 'COMPLETED' AND one_liner <> '')::int AS summarised,
  EXISTS (SELECT 1 FROM job_runs WHERE kind = 'stock-sync' AND status = 'running') AS syncing,
  EXISTS (
    SELECT 1 FROM disclosures d
    JOIN stocks s ON s.corp_code = d.corp_code
    JOIN analyses a ON a.rcept_no = d.rcept_no AND a.status = 'COMPLETED' AND a.one_liner <> ''
  ) AS tour_filing`;

interface State {
  listed: number;
  filings: number;
  summarised: number;
  syncing: boolean;
  tour_filing: boolean;
}

export interface TourReadinessOptions {
  databaseUrl: string;
  /** What a shell running the tour from any folder exports, e.g. `API=http://127.0.0.1:3000 DATA_DIR=/home/me/app/.data`. */
  exports: string;
  log: (line: string) => void;
}

/**
 * Logs `ready for the tour: …` once, when the README tour would work: after the first stock
 * sync and the first filings collected and summarised (about half a minute on a first start,
 * at once on a restart with data). Until then the tour's watch would answer 400 UNKNOWN_STOCK.
 * Started once the service listens (its migrations applied); a failing query is asked again.
 */
export function watchTourReadiness(options: TourReadinessOptions): { stop(): Promise<void> } {
  const pool = new Pool({ connectionString: options.databaseUrl, max: 1, idleTimeoutMillis: POLL_MS * 5 });
  pool.on('error', () => undefined); // a broken idle connection: the next poll opens another
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const poll = async () => {
    try {
      const {
        rows: [state],
      } = await pool.query<State>(STATE);
      if (!stopped && state.listed > 0 && !state.syncing && state.tour_filing) {
        options.log(
          `ready for the tour: ${state.listed} listed companies, ${state.filings} filings (${state.summarised} summarised); ` +
            `run the commands of README.md, "A five-minute tour", from any folder after: export ${options.exports}`,
        );
        stopped = true;
        await pool.end();
        return;
      }
    } catch {
      // The database is restarting, say: ask again.
    }
    if (!stopped) timer = setTimeout(() => void poll(), POLL_MS).unref();
  };
  timer = setTimeout(() => void poll(), 0).unref();

  return {
    stop: async () => {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      await pool.end().catch(() => undefined);
    },
  };
}
