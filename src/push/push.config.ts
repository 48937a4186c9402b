import { DAY_MS, type EnvReader } from '../config/env-reader';

/** New-filing push: how the dispatcher sends and retries (the Firebase account is `FirebaseConfig`, attestation/firebase.config.ts). */
export interface PushConfig {
  push: {
    /** sendEach batches (of up to 500 messages) in flight at once on each instance. */
    concurrency: number;
    /** Attempts per message before a transient failure is final; retries back off exponentially from `retryBaseMs`. */
    maxAttempts: number;
    retryBaseMs: number;
    /** How long a claimed batch stays with its sender; a batch still unanswered after that is sent again (at most `maxAttempts`). */
    leaseMs: number;
    /** How long a new filing's fan-out waits for its one-liner after the filing was stored; then it goes with the report name. */
    summaryWaitMs: number;
    /** Watchers a fan-out turns into deliveries per transaction, so sending starts before the last ones are expanded. */
    expansionUsers: number;
    /**
     * Messages the whole fleet hands to FCM in any rolling minute (FcmSendBudget). The default is
     * FCM's default quota per Firebase project, 600,000 messages a minute; set what the project was granted.
     */
    messagesPerMinute: number;
  };
}

export function pushConfig(read: EnvReader): PushConfig {
  return {
    push: {
      concurrency: read.integer('PUSH_CONCURRENCY', 4, { min: 1, max: 32 }),
      maxAttempts: read.integer('PUSH_MAX_ATTEMPTS', 5, { min: 1, max: 20 }),
      retryBaseMs: read.integer('PUSH_RETRY_BASE_MS', 10_000, { min: 1, max: 60 * 60_000 }),
      leaseMs: read.integer('PUSH_LEASE_MS', 5 * 60_000, { min: 1000, max: DAY_MS }),
      summaryWaitMs: read.integer('PUSH_SUMMARY_WAIT_MS', 90_000, { min: 0, max: DAY_MS }),
      expansionUsers: read.integer('PUSH_EXPANSION_USERS', 5_000, { min: 1, max: 100_000 }),
      messagesPerMinute: read.integer('PUSH_MESSAGES_PER_MINUTE', 600_000, { min: 1_000, max: 1_000_000_000 }),
    },
  };
}
