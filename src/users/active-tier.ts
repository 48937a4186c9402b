import type { PremiumTier } from './user.entity';

/** The tier in force: `premium_tier` while `premium_until` is later than now, else `none`. */
export function activeTier(user: { premiumTier: PremiumTier; premiumUntil: Date | null }, now: Date): PremiumTier {
  return user.premiumUntil !== null && user.premiumUntil.getTime() > now.getTime() ? user.premiumTier : 'none';
}

/** The same rule in SQL, for statements that must decide inside the database. */
export const ACTIVE_TIER_SQL = (users: string, now: string) =>
  `CASE WHEN ${users}.premium_until > ${now} THEN ${users}.premium_tier ELSE 'none' END`;

export const WEEKLY_REVEAL_LIMIT: Record<PremiumTier, number> = { none: 10, pro: 60, max: 200 };
export const WATCHLIST_CAPACITY: Record<PremiumTier, number> = { none: 3, pro: 30, max: 100 };
