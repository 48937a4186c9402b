/** The most messages one `send` call takes: the limit of FCM's sendEach. */
export const MAX_MESSAGES_PER_SEND = 500;

/** One notification to one device, in the provider-neutral form the dispatcher builds. */
export interface PushMessage {
  /** The device's registration token. */
  token: string;
  title: string;
  body: string;
  /** What the app reads when the notification is tapped. */
  data: { rcept_no: string; corp_code: string };
  /** Notifications with the same key replace each other on the device (so a repeat shows once). */
  collapseKey: string;
}

/**
 * Why a message was not accepted:
 * - `unregistered`: the token is gone for good (FCM UNREGISTERED only); delete it;
 * - `transient`: the provider or the network failed; try again later;
 * - `rejected`: anything else (invalid argument, sender id mismatch, …); keep the token, do not retry.
 */
export type PushFailure = 'unregistered' | 'transient' | 'rejected';

export type PushSendResult =
  | { ok: true }
  | {
      ok: false;
      failure: PushFailure;
      error: string;
      /** How long the provider asked us to wait before sending again, when it said (a QUOTA_EXCEEDED answer's retry time). */
      retryAfterMs?: number;
    };

/**
 * firebase-admin's code for FCM's QUOTA_EXCEEDED (and RESOURCE_EXHAUSTED): the Firebase project's
 * message quota is spent for the current minute. Not `device-message-rate-exceeded`, one device's own rate.
 */
export const QUOTA_EXCEEDED_CODE = 'messaging/message-rate-exceeded';
const QUOTA_EXCEEDED_ERROR = /^messaging\/message-rate-exceeded\b/;

/** A refusal for the project's quota: the message itself was fine, and every instance should hold off. */
export function isQuotaExceeded(result: PushSendResult): result is PushSendResult & { ok: false } {
  return !result.ok && result.failure === 'transient' && QUOTA_EXCEEDED_ERROR.test(result.error);
}

/**
 * Hands messages to the push provider. An abstract class so it serves as the
 * injection token: the server binds FirebasePushSender (or DisabledPushSender when
 * push is not configured), tests and the benchmark bind a double, since FCM has no emulator.
 */
export abstract class PushSender {
  /** False when push is not configured: fan-outs then create no deliveries. */
  abstract readonly enabled: boolean;

  /**
   * Sends up to MAX_MESSAGES_PER_SEND messages; answers one result per message, in
   * order. Per-message failures are results, not exceptions.
   */
  abstract send(messages: PushMessage[]): Promise<PushSendResult[]>;
}
