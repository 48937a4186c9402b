import { Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { App } from 'firebase-admin/app';
import type { BatchResponse, Messaging, SendResponse, TokenMessage } from 'firebase-admin/messaging';
import { initializeFirebaseApp, withDeadline } from '../attestation/firebase-app';
import type { Clock } from '../common/clock';
import { MAX_MESSAGES_PER_SEND, type PushFailure, type PushMessage, PushSender, type PushSendResult } from './push-sender';

/** A filing notification is news for a day; a device offline longer does not get it afterwards. */
export const NOTIFICATION_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * How long one sendEach (up to 500 messages, the access token included) may take. FCM answers a
 * message in well under a second and takes 100 at a time on one connection; firebase-admin's own
 * limit, 15 s per message retried up to four times, would hold a batch for over a minute.
 */
export const FCM_SEND_TIMEOUT_MS = 10_000;

/** Error codes (the part after the last `/`) that mean the token is gone. FCM v1: UNREGISTERED. */
const UNREGISTERED_CODES = new Set(['registration-token-not-registered']);

/**
 * Error codes worth another attempt: FCM unavailable or failing inside (UNAVAILABLE,
 * INTERNAL), quotas (QUOTA_EXCEEDED, per-device and per-topic rates), and the network.
 * `invalid-credential` at send time means the access token could not be fetched, which
 * is almost always the network; a revoked key just runs out of attempts. `ETIMEDOUT` is
 * also a sendEach past FCM_SEND_TIMEOUT_MS. `message-rate-exceeded` (QUOTA_EXCEEDED) also pauses
 * the fleet's sending (isQuotaExceeded); firebase-admin keeps neither FCM's Retry-After header nor
 * the answer's details, so no retry time can be reported with it.
 */
const TRANSIENT_CODES = new Set([
  'server-unavailable',
  'internal-error',
  'message-rate-exceeded',
  'device-message-rate-exceeded',
  'topics-message-rate-exceeded',
  'network-error',
  'network-timeout',
  'invalid-credential',
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EPIPE',
]);

/** firebase-admin reports a non-JSON 429/502/504 as `unknown-error` with the status in the message. */
const TRANSIENT_HTTP_STATUS = /Status code: (429|502|504)\b/;

/** Classifies an error of firebase-admin (per message or for a whole call) into what we do about it. */
export function classifyFirebaseError(error: unknown): PushSendResult & { ok: false } {
  const code = typeof (error as { code?: unknown } | null)?.code === 'string' ? (error as { code: string }).code : '';
  const message = error instanceof Error ? error.message : String(error);
  // A session error wraps the app error's code: `messaging/app/network-error`.
  const tail = code.slice(code.lastIndexOf('/') + 1);
  let failure: PushFailure = 'rejected';
  if (UNREGISTERED_CODES.has(tail)) failure = 'unregistered';
  else if (TRANSIENT_CODES.has(tail) || (tail === 'unknown-error' && TRANSIENT_HTTP_STATUS.test(message))) failure = 'transient';
  return { ok: false, failure, error: `${code || 'error'}: ${message}`.slice(0, 500) };
}

/** The FCM message for both platforms: shown at once (high priority), for a day, one per filing. */
export function toFirebaseMessage(message: PushMessage, expiresAtMs: number): TokenMessage {
  return {
    token: message.token,
    notification: { title: message.title, body: message.body },
    data: { ...message.data },
    android: {
      priority: 'high',
      ttl: NOTIFICATION_TTL_MS,
      // The tag replaces a shown notification of the same filing (a copy sent again after a lost lease shows
      // once); android.collapseKey is not used, since FCM keeps only four collapse keys per offline device
      // and filings must not replace each other.
      notification: { tag: message.collapseKey, sound: 'default' },
    },
    apns: {
      headers: {
        'apns-priority': '10',
        'apns-push-type': 'alert',
        'apns-expiration': String(Math.floor(expiresAtMs / 1000)),
        'apns-collapse-id': message.collapseKey,
      },
      payload: { aps: { sound: 'default' } },
    },
  };
}

function toResult(response: SendResponse): PushSendResult {
  return response.success ? { ok: true } : classifyFirebaseError(response.error);
}

let appSequence = 0;

/**
 * Sends through Firebase Cloud Messaging: firebase-admin `getMessaging(app).sendEach`
 * with a Firebase app of its own, initialised from FIREBASE_SERVICE_ACCOUNT. A variable
 * that cannot be read stops the start. Never throws from `send`: a failed call becomes
 * one classified result per message; a call unanswered after FCM_SEND_TIMEOUT_MS is
 * transient for every message of it.
 */
export class FirebasePushSender extends PushSender implements OnModuleInit, OnApplicationShutdown {
  readonly enabled = true;
  private readonly logger = new Logger('Push');
  /** A field so tests can shorten it. */
  protected readonly sendTimeoutMs: number = FCM_SEND_TIMEOUT_MS;
  private app?: App;
  private messaging?: Messaging;

  constructor(
    private readonly serviceAccount: string,
    private readonly clock: Clock,
  ) {
    super();
  }

  async onModuleInit(): Promise<void> {
    // A named app of its own, so it never collides with App Check's or a default app.
    this.app = await initializeFirebaseApp(this.serviceAccount, `push-${++appSequence}`, this.sendTimeoutMs);
    const { getMessaging } = await import('firebase-admin/messaging');
    this.messaging = getMessaging(this.app);
    this.logger.log(`new-filing push notifications are sent through Firebase project ${this.app.options.projectId}`);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.app === undefined) return;
    const { deleteApp } = await import('firebase-admin/app');
    await deleteApp(this.app);
    this.app = undefined;
    this.messaging = undefined;
  }

  async send(messages: PushMessage[]): Promise<PushSendResult[]> {
    const results: PushSendResult[] = [];
    // Callers send at most one batch; more is split rather than refused.
    for (let start = 0; start < messages.length; start += MAX_MESSAGES_PER_SEND) {
      results.push(...(await this.sendBatch(messages.slice(start, start + MAX_MESSAGES_PER_SEND))));
    }
    return results;
  }

  private async sendBatch(batch: PushMessage[]): Promise<PushSendResult[]> {
    if (this.messaging === undefined) return batch.map(() => classifyFirebaseError(new Error('the Firebase app is not initialised')));
    const expiresAtMs = this.clock.nowMs() + NOTIFICATION_TTL_MS;
    let answer: BatchResponse | undefined;
    let failure: unknown;
    try {
      const sending = this.messaging.sendEach(batch.map((message) => toFirebaseMessage(message, expiresAtMs)));
      answer = await withDeadline(sending, this.sendTimeoutMs, `sendEach of ${batch.length} messages`);
    } catch (error) {
      failure = error;
      // An HTTP/2 session error still carries what happened to each message.
      const pending = (error as { pendingBatchResponse?: Promise<BatchResponse> }).pendingBatchResponse;
      answer = pending ? await pending.catch(() => undefined) : undefined;
      this.logger.warn({ err: error }, `sendEach of ${batch.length} messages failed as a whole`);
    }
    return batch.map((_, i) => {
      const response = answer?.responses[i];
      if (response !== undefined) return toResult(response);
      return classifyFirebaseError(failure ?? new Error('sendEach answered fewer responses than messages'));
    });
  }
}
