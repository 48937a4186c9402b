import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { type IdentityProvider, UserIdentityEntity } from './user-identity.entity';
import { type PremiumTier, UserEntity } from './user.entity';

/** The premium columns as stored: `premium_tier` is the tier last known, see TierTransitions. */
export interface PremiumColumns {
  premium_tier: PremiumTier;
  premium_until: Date | null;
  /** NULL for a tier an operator set by hand (no purchase behind it). */
  premium_platform: string | null;
  premium_tx_ref: string | null;
  downgraded_at: Date | null;
  downgraded_from: Exclude<PremiumTier, 'none'> | null;
}

/** What a tier transition writes, the pending downgrade cleanup included. */
export interface PremiumWrite {
  tier: PremiumTier;
  until: Date | null;
  platform: string | null;
  txRef: string | null;
  downgradedAt: Date | null;
  downgradedFrom: Exclude<PremiumTier, 'none'> | null;
}

/** Raised inside the sign-in transaction when a concurrent sign-in bound the subject first. */
class IdentityTakenConcurrently extends Error {}

/**
 * Owner of table users: the only writer. Owner of table user_identities: the only writer.
 * Sign-in creates a user
 * with its identity; the premium columns and `downgraded_at` change only through the
 * methods TierTransitions and the downgrade cleanup call, inside their transactions
 * (`manager`). Other features read users through a join at most.
 */
@Injectable()
export class UsersRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The user bound to a provider subject, created with the identity at the first
   * sign-in. Two first sign-ins racing for one subject end with a single user:
   * the unique (provider, subject) constraint decides, and the loser's new user
   * row is rolled back with its transaction.
   */
  async findOrCreateByIdentity(provider: IdentityProvider, subject: string): Promise<{ userId: number; created: boolean }> {
    const existing = await this.findUserIdByIdentity(provider, subject);
    if (existing !== undefined) return { userId: existing, created: false };
    try {
      const userId = await this.dataSource.transaction(async (manager) => {
        const [user] = await manager.query<{ id: number }[]>('INSERT INTO users DEFAULT VALUES RETURNING id');
        const bound = await manager.query<{ user_id: number }[]>(
          `INSERT INTO user_identities (user_id, provider, subject) VALUES ($1, $2, $3)
           ON CONFLICT (provider, subject) DO NOTHING RETURNING user_id`,
          [user.id, provider, subject],
        );
        if (bound.length === 0) throw new IdentityTakenConcurrently();
        return user.id;
      });
      return { userId, created: true };
    } catch (error) {
      if (!(error instanceof IdentityTakenConcurrently)) throw error;
      const winner = await this.findUserIdByIdentity(provider, subject);
      if (winner === undefined) throw new Error('identity vanished after a concurrent sign-in');
      return { userId: winner, created: false };
    }
  }

  async exists(userId: number): Promise<boolean> {
    return this.dataSource.getRepository(UserEntity).existsBy({ id: userId });
  }

  /**
   * Deletes the user and, through `ON DELETE CASCADE` on every table that holds
   * user data, everything that belongs to the user, in one statement and so one
   * transaction. Returns false when the user was already gone.
   */
  async delete(userId: number): Promise<boolean> {
    // Counted through a CTE: TypeORM's raw DELETE result is not the row list.
    const [{ n }] = await this.dataSource.query<{ n: number }[]>(
      'WITH deleted AS (DELETE FROM users WHERE id = $1 RETURNING 1) SELECT count(*)::int AS n FROM deleted',
      [userId],
    );
    return n > 0;
  }

  /**
   * Locks the user's row FOR NO KEY UPDATE and answers its premium columns; undefined
   * when the user is gone. The lock every change of a user's tier or watchlist takes
   * first, so they take turns; the weakest lock that conflicts with itself, it leaves
   * foreign-key checks (KEY SHARE) of other features' inserts unblocked.
   */
  async lockPremium(manager: EntityManager, userId: number): Promise<PremiumColumns | undefined> {
    const [row] = await manager.query<PremiumColumns[]>(
      `SELECT premium_tier, premium_until, premium_platform, premium_tx_ref, downgraded_at, downgraded_from
         FROM users WHERE id = $1 FOR NO KEY UPDATE`,
      [userId],
    );
    return row;
  }

  /**
   * Locks the user's row FOR KEY SHARE (what a foreign-key check takes), so the user
   * cannot be deleted before the caller's transaction ends; false when already gone.
   */
  async lockExisting(manager: EntityManager, userId: number): Promise<boolean> {
    const rows = await manager.query<unknown[]>('SELECT 1 FROM users WHERE id = $1 FOR KEY SHARE', [userId]);
    return rows.length > 0;
  }

  /** The premium columns and the pending downgrade moment, as stored. */
  async premiumState(
    manager: EntityManager,
    userId: number,
  ): Promise<{ premium_tier: PremiumTier; premium_until: Date | null; downgraded_at: Date | null } | undefined> {
    const [row] = await manager.query<{ premium_tier: PremiumTier; premium_until: Date | null; downgraded_at: Date | null }[]>(
      'SELECT premium_tier, premium_until, downgraded_at FROM users WHERE id = $1',
      [userId],
    );
    return row;
  }

  /** Writes a tier transition (TierTransitions decides it, under `lockPremium`). */
  async writePremium(manager: EntityManager, userId: number, next: PremiumWrite): Promise<void> {
    await manager.query(
      `UPDATE users SET premium_tier = $2, premium_until = $3, premium_platform = $4, premium_tx_ref = $5,
         downgraded_at = $6, downgraded_from = $7
       WHERE id = $1`,
      [userId, next.tier, next.until, next.platform, next.txRef, next.downgradedAt, next.downgradedFrom],
    );
  }

  /**
   * Clears the downgrade moment if it is at or before `dueAt`; true when this call
   * cleared it. Conditional, so of two concurrent cleanups only one sees true.
   */
  async clearDueDowngrade(manager: EntityManager, userId: number, dueAt: Date): Promise<boolean> {
    const cleared = await manager.query<{ id: number }[]>(
      `WITH cleared AS (
         UPDATE users SET downgraded_at = NULL, downgraded_from = NULL WHERE id = $1 AND downgraded_at <= $2 RETURNING id)
       SELECT id FROM cleared`,
      [userId, dueAt],
    );
    return cleared.length > 0;
  }

  /** Users with a lapse nobody recorded yet (premium_until at or before `now`) or a downgrade moment at or before `dueAt`. */
  async findLapsedOrDue(now: Date, dueAt: Date): Promise<number[]> {
    const rows = await this.dataSource.query<{ id: number }[]>(
      `SELECT id FROM users
       WHERE (premium_tier <> 'none' AND (premium_until IS NULL OR premium_until <= $1))
          OR downgraded_at <= $2`,
      [now, dueAt],
    );
    return rows.map((row) => row.id);
  }

  private async findUserIdByIdentity(provider: IdentityProvider, subject: string): Promise<number | undefined> {
    const identity = await this.dataSource
      .getRepository(UserIdentityEntity)
      .findOne({ select: { userId: true }, where: { provider, subject } });
    return identity?.userId;
  }
}
