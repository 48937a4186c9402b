import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { type PushPlatform, PushTokenEntity } from './push-token.entity';

/**
 * Owner of table push_tokens: the only writer. The devices of a user: FCM registration
 * tokens, each owned by exactly one user. The push fan-out reads the table in a join
 * and removes the tokens FCM reports unregistered through `removeUnregistered`.
 */
@Injectable()
export class PushTokensRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Registers a token for the user, or moves it to the user when another user (a
   * previous sign-in on the same device) held it. One upsert on the unique token:
   * concurrent registrations of one token end with one row owned by one of them,
   * and there is no moment at which two users hold it.
   */
  async register(userId: number, fcmToken: string, platform: PushPlatform): Promise<void> {
    // A user withdrawn meanwhile fails the foreign key: the exception filter answers that with 401.
    await this.dataSource.query(
      `INSERT INTO push_tokens (fcm_token, user_id, platform) VALUES ($1, $2, $3)
       ON CONFLICT (fcm_token) DO UPDATE
         SET user_id = EXCLUDED.user_id, platform = EXCLUDED.platform, updated_at = now()`,
      [fcmToken, userId, platform],
    );
  }

  /**
   * Forgets a token of the user (sign-out on a device). A token that is unknown or
   * belongs to someone else is left alone: the answer is the same, so the call
   * reveals nothing about other users' tokens.
   */
  async unregister(userId: number, fcmToken: string): Promise<void> {
    await this.dataSource.getRepository(PushTokenEntity).delete({ fcmToken, userId });
  }

  /** Removes tokens FCM no longer knows, in the caller's transaction; returns how many rows went. */
  async removeUnregistered(manager: EntityManager, fcmTokens: string[]): Promise<number> {
    // Counted through a CTE: TypeORM's raw DELETE result is not the row list.
    const [{ n }] = await manager.query<{ n: number }[]>(
      'WITH removed AS (DELETE FROM push_tokens WHERE fcm_token = ANY($1::text[]) RETURNING 1) SELECT count(*)::int AS n FROM removed',
      [fcmTokens],
    );
    return n;
  }
}
