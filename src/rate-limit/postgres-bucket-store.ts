import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { Clock, SystemClock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../database/database-errors';
import { type BucketDecision, type BucketRule, BucketStore, RATE_LIMIT_TIME } from './bucket-store';

/**
 * One take: a new bucket starts full and gives its first token; an existing one is
 * refilled for the time since its last refill, then gives a token if it has a whole
 * one. The time is the database's (`clock_timestamp()`), the same for every
 * instance, unless $5 gives one (a test's clock). The conflicting row is locked
 * before its SET is evaluated, so concurrent takes of one bucket run one after
 * another, each on the row the previous one wrote.
 * The time is read before that lock: a take that waited behind a later one counts no
 * negative refill and never moves `refilled_at` back (greatest).
 * $1 rule, $2 key, $3 capacity, $4 tokens per second, $5 the time or null.
 */
const TAKE = `
INSERT INTO rate_limit_buckets AS b (rule, key, tokens, allowed, refilled_at, full_at)
SELECT $1, $2, $3::float8 - 1, true, now.at, now.at + make_interval(secs => 1 / $4::float8)
FROM (SELECT coalesce($5::timestamptz, clock_timestamp()) AS at) now
ON CONFLICT (rule, key) DO UPDATE SET (tokens, allowed, refilled_at, full_at) = (
  SELECT r.tokens - r.taken, r.taken = 1, r.at, r.at + make_interval(secs => ($3::float8 - r.tokens + r.taken) / $4::float8)
  FROM (
    SELECT f.tokens, f.at, CASE WHEN f.tokens >= 1 THEN 1 ELSE 0 END AS taken
    FROM (
      SELECT least($3::float8, b.tokens + $4::float8 * greatest(0, extract(epoch FROM excluded.refilled_at - b.refilled_at)::float8)) AS tokens,
             greatest(b.refilled_at, excluded.refilled_at) AS at
    ) f
  ) r
)
RETURNING allowed, tokens`;

/**
 * Idle buckets: full again for longer than the margin, so the same as no row. A
 * batch at a time; rows a take holds right now are skipped (it is using them).
 * $1 margin in seconds, $2 batch size, $3 the time or null (the database's).
 */
const SWEEP = `
DELETE FROM rate_limit_buckets WHERE ctid = ANY(ARRAY(
  SELECT ctid FROM rate_limit_buckets
  WHERE full_at < coalesce($3::timestamptz, clock_timestamp()) - make_interval(secs => $1::float8)
  LIMIT $2
  FOR UPDATE SKIP LOCKED
))`;

/**
 * Owner of table rate_limit_buckets: the only writer. Token buckets shared by every
 * instance: one statement per take, so a client's burst is the rule's capacity
 * however many instances serve it. Timed by the database's clock, one clock for the
 * whole fleet; a test that moves time gives its FakeClock as RATE_LIMIT_TIME, whose
 * `now()` then times the takes and sweeps instead.
 */
@Injectable()
export class PostgresBucketStore extends BucketStore {
  private readonly logger = new Logger('RateLimit');
  /** The time of a take or a sweep; undefined: the database's. */
  private readonly time?: Clock;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Optional() @Inject(RATE_LIMIT_TIME) time?: Clock,
  ) {
    super();
    this.time = time instanceof SystemClock ? undefined : time;
  }

  /**
   * The application's pool itself (same connections, same timeouts), not TypeORM's
   * query runner: the take runs as a named prepared statement, parsed and planned
   * once per connection instead of on every mutating request.
   */
  private get pool(): Pool {
    return (this.dataSource.driver as PostgresDriver).master as Pool;
  }

  /**
   * When the database cannot answer, the request is refused with 503
   * DATABASE_UNAVAILABLE and Retry-After rather than let through unlimited. Every
   * mutating route needs the database anyway, so failing open would admit nothing
   * that could succeed; it would only lift the limit exactly when PostgreSQL is
   * overloaded (too many connections, statement timeouts), which is when the limit
   * protects it most. Any other failure of the statement (a bug, a missing table)
   * is logged and answered the same way: the limiter is unavailable, not the
   * request wrong, and it must never pass silently or surface as a 500.
   */
  async take(key: string, rule: BucketRule): Promise<BucketDecision> {
    let rows: { allowed: boolean; tokens: number }[];
    try {
      ({ rows } = await this.pool.query<{ allowed: boolean; tokens: number }>({
        name: 'rate-limit-take',
        text: TAKE,
        values: [rule.name, key, rule.capacity, rule.refillPerSecond, this.time?.now() ?? null],
      }));
    } catch (error) {
      // The exception filter answers these 503 and logs them with the request.
      if (isDatabaseUnavailable(error)) throw error;
      this.logger.error({ err: error, rule: rule.name }, 'rate-limit bucket take failed; answering 503');
      throw new AppError('DATABASE_UNAVAILABLE', 'The database is unavailable; try again shortly', {}, DATABASE_RETRY_AFTER_SECONDS);
    }
    const [{ allowed, tokens }] = rows;
    if (allowed) return { allowed: true };
    return { allowed: false, retryAfterMs: Math.ceil(((1 - tokens) / rule.refillPerSecond) * 1000) };
  }

  /**
   * Deletes up to `batchSize` buckets that have been full for more than
   * `marginSeconds`; returns how many went.
   */
  async sweepIdle(batchSize: number, marginSeconds: number): Promise<number> {
    const [, deleted] = await this.dataSource.query<[unknown[], number]>(SWEEP, [marginSeconds, batchSize, this.time?.now() ?? null]);
    return deleted;
  }
}
