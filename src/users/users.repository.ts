import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { IdentityProvider } from './user-identity.entity';

/** Raised inside the sign-in transaction when a concurrent sign-in bound the subject first. */
class IdentityTakenConcurrently extends Error {}

@Injectable()
export class UsersService {
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
    const rows = await this.dataSource.query<unknown[]>('SELECT 1 FROM users WHERE id = $1', [userId]);
    return rows.length > 0;
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

  private async findUserIdByIdentity(provider: IdentityProvider, subject: string): Promise<number | undefined> {
    const rows = await this.dataSource.query<{ user_id: number }[]>(
      'SELECT user_id FROM user_identities WHERE provider = $1 AND subject = $2',
      [provider, subject],
    );
    return rows[0]?.user_id;
  }
}
