import { Logger, type OnModuleInit } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { Clock } from '../common/clock';
import { type PushMessage, PushSender, type PushSendResult } from './push-sender';
import { RecordedPushMessageEntity } from './recorded-push-message.entity';

/** Tokens that answer as FCM does for an uninstalled app, so the token cleanup can be watched. */
export const UNREGISTERED_TOKEN_PREFIX = 'unregistered-';
/** The newest messages kept; older ones are trimmed as new ones arrive. */
export const RECORDED_MESSAGES_KEPT = 10_000;

/** A recorded message as the admin API lists it. */
export interface RecordedPushMessage {
  fcm_token: string;
  platform: string | null;
  title: string;
  body: string;
  data: Record<string, string>;
  outcome: 'sent' | 'unregistered';
  recorded_at: string;
}

/**
 * Owner of table recorded_push_messages: the only writer. Push in local and dev without
 * FIREBASE_SERVICE_ACCOUNT: every message goes through the whole dispatcher (deliveries,
 * leases, outcomes) and ends in a table instead of FCM, where the admin API reads it.
 * A token starting with `unregistered-` answers UNREGISTERED, so its deletion can be seen.
 */
export class RecordingPushSender extends PushSender implements OnModuleInit {
  readonly enabled = true;
  private readonly logger = new Logger('Push');

  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {
    super();
  }

  onModuleInit(): void {
    // Debug: the start summary says it at info (src/startup-summary.ts).
    this.logger.debug('FIREBASE_SERVICE_ACCOUNT is not set: new-filing pushes are RECORDED, not sent (GET /api/v1/admin/push/messages)');
  }

  async send(messages: PushMessage[]): Promise<PushSendResult[]> {
    const results = messages.map((message): PushSendResult =>
      message.token.startsWith(UNREGISTERED_TOKEN_PREFIX)
        ? { ok: false, failure: 'unregistered', error: 'UNREGISTERED (recording push sender)' }
        : { ok: true },
    );
    await this.dataSource.transaction(async (manager) => {
      // The platform is read from the token's row while it still exists (an UNREGISTERED one is deleted after).
      await manager.query(
        `INSERT INTO recorded_push_messages (fcm_token, platform, title, body, data, outcome, recorded_at)
         SELECT m.token, t.platform, m.title, m.body, m.data, m.outcome, $6
         FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::text[]) WITH ORDINALITY AS m(token, title, body, data, outcome, n)
         LEFT JOIN push_tokens t ON t.fcm_token = m.token
         ORDER BY m.n`,
        [
          messages.map((m) => m.token),
          messages.map((m) => m.title),
          messages.map((m) => m.body),
          messages.map((m) => JSON.stringify(m.data)),
          results.map((r) => (r.ok ? 'sent' : 'unregistered')),
          this.clock.now(),
        ],
      );
      await manager.query('DELETE FROM recorded_push_messages WHERE id <= (SELECT max(id) FROM recorded_push_messages) - $1', [
        RECORDED_MESSAGES_KEPT,
      ]);
    });
    return results;
  }

  /** The newest `limit` messages, newest first. */
  async newest(limit: number): Promise<RecordedPushMessage[]> {
    const rows = await this.dataSource.getRepository(RecordedPushMessageEntity).find({ order: { id: 'DESC' }, take: limit });
    return rows.map((row) => ({
      fcm_token: row.fcmToken,
      platform: row.platform,
      title: row.title,
      body: row.body,
      data: row.data,
      outcome: row.outcome,
      recorded_at: row.recordedAt.toISOString(),
    }));
  }
}
