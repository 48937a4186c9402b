import type { Client } from 'pg';
import type { SandboxCompany } from '../../local/dart-sandbox/dart-sandbox';
import { Prng } from '../../local/dart-sandbox/prng';
import { SEEDED_TOKEN_PREFIX } from './settings';

export type Tier = 'none' | 'pro' | 'max';
export const CAPACITY: Record<Tier, number> = { none: 3, pro: 30, max: 100 };

/** What the soak starts from: written with set-based SQL, and handed to the load generator and the checks. */
export interface Seeded {
  userIds: number[];
  tiers: Tier[];
  /** Watch entries: user, company, notifications on. */
  watches: { user: number[]; corp: string[]; notify: boolean[] };
  tokens: { token: string[]; user: number[] };
  /** Users whose quiet window covers part of the run. */
  quietUsers: number;
  /** Listed companies (the stock master), most watched first, with their popularity weights. */
  listed: { corpCode: string[]; weight: number[] };
}

/** A picker of items by weight: cumulative sums and a binary search. */
export class WeightedPicker<T> {
  private readonly cumulative: number[] = [];
  private readonly total: number;

  constructor(
    private readonly items: readonly T[],
    weights: readonly number[],
  ) {
    let sum = 0;
    for (const weight of weights) this.cumulative.push((sum += weight));
    this.total = sum;
  }

  pick(prng: Prng): T {
    const roll = prng.next() * this.total;
    let low = 0;
    let high = this.cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.cumulative[mid] <= roll) low = mid + 1;
      else high = mid;
    }
    return this.items[low];
  }
}

/** Popularity of the n-th most watched company: a Zipf-like tail, as real watchlists concentrate on a few names. */
export const popularity = (rank: number) => 1 / (rank + 5);

/** `HH:MM` in KST of an instant. */
export function kstClock(ms: number): string {
  const kst = new Date(ms + 9 * 3_600_000);
  return `${String(kst.getUTCHours()).padStart(2, '0')}:${String(kst.getUTCMinutes()).padStart(2, '0')}`;
}

/**
 * Seeds the stock master (every Y and K company of the sandbox), the users (tiers: 70 % free,
 * 22 % pro, 8 % max, set by an operator until far in the future), their watch entries (by
 * popularity, within each tier's capacity), their push tokens and some users' quiet hours. The
 * quiet windows are KST wall-clock times that began just before `runStart` and end during the
 * run, no later than `quietEndLimit`, so every held push is released before the run ends.
 */
export async function seed(
  db: Client,
  options: { users: number; watches: number; tokens: number; quietShare: number; seed: number; runStart: number; quietEndLimit: number },
  companies: { listed: SandboxCompany[] },
): Promise<Seeded> {
  const prng = new Prng(options.seed);
  if (companies.listed.length === 0) throw new Error('the sandbox has no listed company');
  const listed = [...companies.listed];
  for (let i = listed.length - 1; i > 0; i--) {
    const j = prng.int(0, i);
    [listed[i], listed[j]] = [listed[j], listed[i]];
  }
  await db.query(
    `INSERT INTO stocks (corp_code, corp_name, stock_code, market_type)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) ON CONFLICT DO NOTHING`,
    [listed.map((c) => c.corpCode), listed.map((c) => c.corpName.trim()), listed.map((c) => c.stockCode), listed.map((c) => c.market)],
  );

  const drawn: Tier[] = Array.from({ length: options.users }, () => {
    const roll = prng.next();
    return roll < 0.7 ? 'none' : roll < 0.92 ? 'pro' : 'max';
  });
  const { rows } = await db.query<{ id: number; premium_tier: Tier }>(
    `INSERT INTO users (premium_tier, premium_until)
     SELECT t, CASE WHEN t = 'none' THEN NULL ELSE now() + interval '365 days' END FROM unnest($1::text[]) AS x(t)
     RETURNING id, premium_tier`,
    [drawn],
  );
  rows.sort((a, b) => a.id - b.id);
  const userIds = rows.map((row) => row.id);
  const tiers = rows.map((row) => row.premium_tier);

  // Watch entries: users drawn by appetite (a max subscriber watches more), companies by popularity.
  const appetite: Record<Tier, number> = { none: 1, pro: 4, max: 12 };
  const userPicker = new WeightedPicker(
    userIds.map((_, i) => i),
    tiers.map((tier) => appetite[tier]),
  );
  const companyPicker = new WeightedPicker(
    listed.map((company) => company.corpCode),
    listed.map((_, rank) => popularity(rank)),
  );
  const watched = userIds.map(() => new Set<string>());
  const watches = { user: [] as number[], corp: [] as string[], notify: [] as boolean[] };
  for (let attempts = 0; watches.user.length < options.watches && attempts < options.watches * 20; attempts++) {
    const i = userPicker.pick(prng);
    if (watched[i].size >= CAPACITY[tiers[i]]) continue;
    const corp = companyPicker.pick(prng);
    if (watched[i].has(corp)) continue;
    watched[i].add(corp);
    watches.user.push(userIds[i]);
    watches.corp.push(corp);
    watches.notify.push(prng.chance(0.92));
  }
  await db.query(
    `INSERT INTO watch_stocks (user_id, corp_code, corp_name, stock_code, notify_enabled)
     SELECT u, c, s.corp_name, s.stock_code, n FROM unnest($1::int[], $2::text[], $3::boolean[]) AS x(u, c, n) JOIN stocks s ON s.corp_code = x.c`,
    [watches.user, watches.corp, watches.notify],
  );

  const tokens = { token: [] as string[], user: [] as number[] };
  for (let i = 0; i < options.tokens; i++) {
    const user = userIds[prng.int(0, userIds.length - 1)];
    tokens.token.push(`${SEEDED_TOKEN_PREFIX}${user}-${i}-${prng.digits(8)}`);
    tokens.user.push(user);
  }
  await db.query(
    `INSERT INTO push_tokens (fcm_token, user_id, platform)
     SELECT t, u, CASE WHEN n % 3 = 0 THEN 'ios' ELSE 'android' END FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS x(t, u, n)`,
    [tokens.token, tokens.user],
  );

  // Quiet hours: windows that began a few minutes ago and end during the run; a few more that lie elsewhere in the day.
  const quiet = { user: [] as number[], start: [] as string[], end: [] as string[] };
  const span = Math.max(60_000, options.quietEndLimit - options.runStart);
  for (const user of userIds) {
    if (prng.chance(options.quietShare)) {
      quiet.user.push(user);
      quiet.start.push(kstClock(options.runStart - prng.int(2, 10) * 60_000));
      quiet.end.push(kstClock(options.runStart + 60_000 + prng.next() * (span - 60_000)));
    } else if (prng.chance(0.02)) {
      quiet.user.push(user);
      quiet.start.push(kstClock(options.runStart + 5 * 3_600_000));
      quiet.end.push(kstClock(options.runStart + 7 * 3_600_000));
    }
  }
  await db.query(
    `INSERT INTO push_preferences (user_id, quiet_start, quiet_end)
     SELECT u, s::time, e::time FROM unnest($1::int[], $2::text[], $3::text[]) AS x(u, s, e) WHERE s <> e`,
    [quiet.user, quiet.start, quiet.end],
  );
  await db.query('ANALYZE');

  return {
    userIds,
    tiers,
    watches,
    tokens,
    quietUsers: quiet.user.length,
    listed: { corpCode: listed.map((company) => company.corpCode), weight: listed.map((_, rank) => popularity(rank)) },
  };
}
