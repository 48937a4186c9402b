import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { classifyFirebaseError } from '../../src/push/firebase-push-sender';
import type { PushMessage, PushSendResult } from '../../src/push/push-sender';
import { RecordingPushSender } from '../../src/push/recording-push-sender';
import { InstanceIdentity } from '../../src/fleet/instance-identity';
import { SingletonJobs } from '../../src/fleet/singleton-jobs';
import { bootstrap } from '../../src/main';
import type { FcmAnswer, RelayedAnswer, RelayedBatch } from './push-recorder';

/**
 * One instance of the fleet, in a process of its own, started exactly as production starts
 * (src/main.ts's `bootstrap`: configuration from the environment, the process's fault handlers,
 * signals, migrations, listen). Two things differ, both outside the service's code:
 *   - pushes: APP_ENV=local without FIREBASE_SERVICE_ACCOUNT binds RecordingPushSender; its
 *     `send` is replaced here by a relay that posts each batch to the soak's push recorder and
 *     returns the recorder's per-message answers, classified as FirebasePushSender classifies FCM's;
 *   - observation: the application object is taken from NestFactory.create, so the process can
 *     tell the soak which singleton jobs it holds (on every change) and its memory (every second).
 */

/** Messages to the soak (process.send). */
export type InstanceEvent =
  | { kind: 'ready'; id: string; at: number }
  | { kind: 'held'; at: number; jobs: string[] }
  | { kind: 'memory'; at: number; rss: number; heapUsed: number; heapTotal: number; arrayBuffers: number };

const RECORDER_URL = process.env.SOAK_RECORDER_URL!;
const INDEX = Number(process.env.SOAK_INSTANCE_INDEX);
/** As FirebasePushSender bounds one sendEach. */
const SEND_TIMEOUT_MS = 10_000;

/** FCM v1 error codes as firebase-admin names them, which is what the real sender classifies. */
const FIREBASE_CODES: Record<Exclude<FcmAnswer, 'OK'>, string> = {
  UNREGISTERED: 'messaging/registration-token-not-registered',
  UNAVAILABLE: 'messaging/server-unavailable',
  QUOTA_EXCEEDED: 'messaging/message-rate-exceeded',
};

async function relay(messages: PushMessage[]): Promise<PushSendResult[]> {
  const batch: RelayedBatch = {
    instance: INDEX,
    messages: messages.map(({ token, title, body, data, collapseKey }) => ({ token, title, body, data, collapseKey })),
  };
  const response = await fetch(RECORDER_URL, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(batch),
    signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
  });
  // A failed call as a whole: the dispatcher retries every message of it.
  if (!response.ok) throw new Error(`push recorder answered HTTP ${response.status}`);
  const { results } = (await response.json()) as RelayedAnswer;
  return results.map(({ answer, retryAfterS }) => {
    if (answer === 'OK') return { ok: true };
    const text = retryAfterS === undefined ? answer : `${answer}; retry after ${retryAfterS} s`;
    return classifyFirebaseError(Object.assign(new Error(text), { code: FIREBASE_CODES[answer] }));
  });
}

RecordingPushSender.prototype.send = relay;

let app: INestApplication | undefined;
const create = NestFactory.create.bind(NestFactory) as typeof NestFactory.create;
NestFactory.create = (async (...args: Parameters<typeof NestFactory.create>) => {
  const created = await create(...args);
  app = created;
  return created;
}) as typeof NestFactory.create;

function report(event: InstanceEvent): void {
  process.send?.(event);
}

// The soak going away (even killed) must not leave an instance serving on its own.
process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));

void bootstrap().then(() => {
  if (!app) return;
  const jobs = app.get(SingletonJobs);
  report({ kind: 'ready', id: app.get(InstanceIdentity).id, at: Date.now() });
  let held = '';
  const watchHeld = () => {
    const now = jobs.held();
    if (now.join() === held) return;
    held = now.join();
    report({ kind: 'held', at: Date.now(), jobs: now });
  };
  watchHeld();
  setInterval(watchHeld, 20).unref();
  setInterval(() => {
    const usage = process.memoryUsage();
    report({
      kind: 'memory',
      at: Date.now(),
      rss: usage.rss,
      heapUsed: usage.heapUsed,
      heapTotal: usage.heapTotal,
      arrayBuffers: usage.arrayBuffers,
    });
  }, 1_000).unref();
});
