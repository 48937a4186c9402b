import type { INestApplicationContext } from '@nestjs/common';
import { ServiceTokenService } from '../../src/auth/service-token.service';

/**
 * Rows the end-to-end tests start from, written in one place so a schema change is
 * one edit. Plain SQL for now; the tables' owners may take these over.
 */

/** A DataSource, an EntityManager or a query runner: anything that answers rows. */
export interface Queryable {
  query<T = unknown>(sql: string, parameters?: unknown[]): Promise<T>;
}

export type PremiumTier = 'none' | 'pro' | 'max';

export interface UserFixture {
  /** A chosen id, e.g. the largest users.id; default: the next one. */
  id?: number;
  tier?: PremiumTier;
  until?: Date | null;
  /**
   * The store purchase the tier comes from: an Android purchase entitling the user until
   * `until` is stored with it. Without it, a tier is one an operator set by hand.
   */
  txRef?: string | null;
}

/** The default products of SUBSCRIPTION_PRODUCTS. */
const PRODUCT_OF_TIER: Record<Exclude<PremiumTier, 'none'>, string> = { pro: 'service.pro.monthly', max: 'service.max.monthly' };

/** Inserts a user (free tier unless told) and returns its id. */
export async function createUser(db: Queryable, user: UserFixture = {}): Promise<number> {
  const txRef = user.txRef ?? null;
  const values = [user.tier ?? 'none', user.until ?? null, txRef, txRef === null ? null : 'android'];
  const [row] =
    user.id === undefined
      ? await db.query<{ id: number }[]>(
          'INSERT INTO users (premium_tier, premium_until, premium_tx_ref, premium_platform) VALUES ($1, $2, $3, $4) RETURNING id',
          values,
        )
      : await db.query<{ id: number }[]>(
          'INSERT INTO users (id, premium_tier, premium_until, premium_tx_ref, premium_platform) VALUES ($5, $1, $2, $3, $4) RETURNING id',
          [...values, user.id],
        );
  if (txRef !== null && user.tier && user.tier !== 'none') {
    await db.query(
      `INSERT INTO store_purchases (platform, store_ref, product_id, user_id, state, expires_at, entitled_until, environment)
       VALUES ('android', $1, $2, $3, 'SUBSCRIPTION_STATE_ACTIVE', $4, $4, 'production')`,
      [txRef, PRODUCT_OF_TIER[user.tier], row.id, user.until ?? null],
    );
  }
  return row.id;
}

/** Inserts `count` free users in one statement and returns their ids. */
export async function createUsers(db: Queryable, count: number): Promise<number[]> {
  const rows = await db.query<{ id: number }[]>("INSERT INTO users (premium_tier) SELECT 'none' FROM generate_series(1, $1) RETURNING id", [
    count,
  ]);
  return rows.map((row) => row.id);
}

/** A service token for the user, issued at the app's current (possibly fake) time. */
export function serviceTokenFor(t: { app: INestApplicationContext }, userId: number): string {
  return t.app.get(ServiceTokenService).issue(userId);
}

/** The Authorization header value of `serviceTokenFor`. */
export function bearerFor(t: { app: INestApplicationContext }, userId: number): string {
  return `Bearer ${serviceTokenFor(t, userId)}`;
}

export interface FilingFixture {
  rcept_no: string;
  corp_code: string;
  corp_name?: string;
  stock_code?: string;
  report_name?: string;
  /** Default: the date part of rcept_no. */
  rcept_dt?: string;
  submitter?: string;
  /** Default: now(). */
  created_at?: Date;
}

/** Inserts filings (disclosures rows) in one statement. */
export async function insertFilings(db: Queryable, filings: FilingFixture[]): Promise<void> {
  const column = <T>(pick: (filing: FilingFixture) => T) => filings.map(pick);
  await db.query(
    `INSERT INTO disclosures (rcept_no, corp_code, corp_name, stock_code, report_name, rcept_dt, submitter, created_at)
     SELECT r, c, n, s, rn, d, sub, COALESCE(at, now())
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[])
       AS x(r, c, n, s, rn, d, sub, at)`,
    [
      column((f) => f.rcept_no),
      column((f) => f.corp_code),
      column((f) => f.corp_name ?? 'Company'),
      column((f) => f.stock_code ?? ''),
      column((f) => f.report_name ?? 'Report'),
      column((f) => f.rcept_dt ?? f.rcept_no.slice(0, 8)),
      column((f) => f.submitter ?? ''),
      column((f) => f.created_at ?? null),
    ],
  );
}

export type AnalysisStatus = 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'UNAVAILABLE';

export interface AnalysisFixture {
  rcept_no: string;
  /** Default: COMPLETED. */
  status?: AnalysisStatus;
  /** Default: 'One line' when COMPLETED, else null. */
  one_liner?: string | null;
  /** Default: {} when COMPLETED, else null. */
  result?: object | null;
  /** Default: 2000 when COMPLETED, else null. */
  doc_length?: number | null;
}

/** Inserts analyses of existing filings in one statement; a COMPLETED one has a summary, result and length. */
export async function insertAnalyses(db: Queryable, analyses: AnalysisFixture[]): Promise<void> {
  const rows = analyses.map((analysis) => {
    const completed = (analysis.status ?? 'COMPLETED') === 'COMPLETED';
    const result = analysis.result === undefined ? (completed ? {} : null) : analysis.result;
    return {
      rcept_no: analysis.rcept_no,
      status: analysis.status ?? 'COMPLETED',
      one_liner: analysis.one_liner === undefined ? (completed ? 'One line' : null) : analysis.one_liner,
      result: result === null ? null : JSON.stringify(result),
      doc_length: analysis.doc_length === undefined ? (completed ? 2000 : null) : analysis.doc_length,
    };
  });
  await db.query(
    `INSERT INTO analyses (rcept_no, status, one_liner, result, doc_length)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::int[])`,
    [
      rows.map((row) => row.rcept_no),
      rows.map((row) => row.status),
      rows.map((row) => row.one_liner),
      rows.map((row) => row.result),
      rows.map((row) => row.doc_length),
    ],
  );
}
