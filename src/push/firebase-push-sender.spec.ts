import { Logger } from '@nestjs/common';
import { FirebaseAppError } from 'firebase-admin/app';
import { type BatchResponse, FirebaseMessagingError, Messaging, type TokenMessage } from 'firebase-admin/messaging';
import { FakeClock } from '../../test/support/fake-clock';
import { firebaseServiceAccountJson } from '../../test/support/firebase-doubles';
import { SystemClock } from '../common/clock';
import { DisabledPushSender } from './disabled-push-sender';
import { classifyFirebaseError, FirebasePushSender, NOTIFICATION_TTL_MS } from './firebase-push-sender';
import { newFilingMessage } from './new-filing-message';
import { isQuotaExceeded, type PushMessage } from './push-sender';

// The constructors firebase-admin builds its errors with are internal to its typings.
/** When the tests' messages are sent, by the sender's clock (a fraction of a second past, to see it rounded down). */
const SENT_AT = new Date('2026-11-20T03:00:00.750Z');

const MessagingError = FirebaseMessagingError as unknown as {
  new (info: { code: string; message: string }): Error;
  /** How firebase-admin turns an FCM error answer (`error.details[].errorCode` or `error.status`) into an error. */
  fromServerError(serverCode: string, message?: string, rawServerResponse?: object): Error;
};
const AppError = FirebaseAppError as unknown as new (code: string, message: string) => Error;
/**
 * What firebase-admin's (unexported) FirebaseMessagingSessionError is: a messaging error
 * built from the session's app error, so `messaging/app/network-error`, with the answers
 * of the requests that were in flight.
 */
function sessionError(cause: { code: string; message: string }, pendingBatchResponse?: Promise<BatchResponse>): Error {
  return Object.assign(new MessagingError({ code: cause.code, message: cause.message }), { pendingBatchResponse });
}

function message(i: number): PushMessage {
  return newFilingMessage(`token-${i}`, {
    rceptNo: '20261120000123',
    corpCode: '00126380',
    corpName: '삼성전자',
    reportName: '분기보고서',
    oneLiner: null,
  });
}

describe('classifyFirebaseError', () => {
  it.each([
    ['UNREGISTERED', 'unregistered'],
    // Legacy server code of the same condition.
    ['NotRegistered', 'unregistered'],
    ['UNAVAILABLE', 'transient'],
    ['INTERNAL', 'transient'],
    ['QUOTA_EXCEEDED', 'transient'],
    ['RESOURCE_EXHAUSTED', 'transient'],
    ['DeviceMessageRateExceeded', 'transient'],
    ['INVALID_ARGUMENT', 'rejected'],
    ['SENDER_ID_MISMATCH', 'rejected'],
    ['PERMISSION_DENIED', 'rejected'],
    ['THIRD_PARTY_AUTH_ERROR', 'rejected'],
    ['InvalidRegistration', 'rejected'],
    ['UNSPECIFIED_ERROR', 'rejected'],
    ['SOMETHING_NEW', 'rejected'],
  ])('FCM %s is %s', (serverCode, failure) => {
    const error = MessagingError.fromServerError(serverCode, `FCM said ${serverCode}`);
    expect(classifyFirebaseError(error)).toEqual({ ok: false, failure, error: expect.stringContaining(`FCM said ${serverCode}`) });
  });

  it("tells the project's quota (QUOTA_EXCEEDED, RESOURCE_EXHAUSTED) from one device's rate, without a retry time", () => {
    // firebase-admin builds the error from the answer's code and message only: FCM's Retry-After header and
    // the body's details are not kept, so the dispatcher pauses for its default.
    const body = { error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded', details: [{ retryDelay: '17s' }] } };
    for (const serverCode of ['QUOTA_EXCEEDED', 'RESOURCE_EXHAUSTED']) {
      const result = classifyFirebaseError(MessagingError.fromServerError(serverCode, 'Quota exceeded', body));
      expect(isQuotaExceeded(result)).toBe(true);
      expect(result.retryAfterMs).toBeUndefined();
    }
    expect(isQuotaExceeded(classifyFirebaseError(MessagingError.fromServerError('DeviceMessageRateExceeded')))).toBe(false);
    expect(isQuotaExceeded(classifyFirebaseError(MessagingError.fromServerError('UNAVAILABLE')))).toBe(false);
  });

  it('names the client code of firebase-admin in the error', () => {
    expect(classifyFirebaseError(MessagingError.fromServerError('UNREGISTERED')).error).toMatch(
      /^messaging\/registration-token-not-registered: /,
    );
  });

  it('retries network errors and timeouts, also inside an HTTP/2 session error', () => {
    expect(classifyFirebaseError(new AppError('network-timeout', 'Error while making request: timeout.')).failure).toBe('transient');
    const reset = new AppError('network-error', 'Error while making request: socket hang up. Error code: ECONNRESET');
    expect(classifyFirebaseError(reset).failure).toBe('transient');
    const session = sessionError({ code: 'app/network-error', message: 'GOAWAY' });
    expect((session as { code?: string }).code).toBe('messaging/app/network-error');
    expect(classifyFirebaseError(session).failure).toBe('transient');
    expect(classifyFirebaseError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })).failure).toBe('transient');
  });

  it('retries a gateway answer without a JSON body, and refuses other unknown answers', () => {
    const gateway = new MessagingError({ code: 'unknown-error', message: 'Unknown. Raw server response: "<html>". Status code: 502.' });
    expect(classifyFirebaseError(gateway).failure).toBe('transient');
    const teapot = new MessagingError({ code: 'unknown-error', message: 'Unknown. Raw server response: "tea". Status code: 418.' });
    expect(classifyFirebaseError(teapot).failure).toBe('rejected');
  });

  it('refuses anything that is not a Firebase error, without retrying', () => {
    expect(classifyFirebaseError(new TypeError('cannot read properties of undefined'))).toEqual({
      ok: false,
      failure: 'rejected',
      error: 'error: cannot read properties of undefined',
    });
    expect(classifyFirebaseError('plain string').failure).toBe('rejected');
  });
});

/** A short deadline for the test of it; test/e2e/outbound-timeouts.e2e-spec.ts sends to a server that hangs. */
class QuickFirebasePushSender extends FirebasePushSender {
  protected override readonly sendTimeoutMs = 100;
}

describe('FirebasePushSender', () => {
  let log: jest.SpyInstance;
  let sendEach: jest.SpyInstance<Promise<BatchResponse>, Parameters<Messaging['sendEach']>>;
  let sender: FirebasePushSender;

  beforeEach(async () => {
    log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    sendEach = jest.spyOn(Messaging.prototype, 'sendEach');
    sender = new QuickFirebasePushSender(firebaseServiceAccountJson(), new FakeClock(SENT_AT));
    await sender.onModuleInit();
  });

  afterEach(async () => {
    await sender.onApplicationShutdown();
    jest.restoreAllMocks();
  });

  it('initialises its own Firebase app and says so', () => {
    expect(sender.enabled).toBe(true);
    expect(log).toHaveBeenCalledWith('new-filing push notifications are sent through Firebase project briefing-test');
  });

  it('hands at most 500 messages to each sendEach and answers one result per message, in order', async () => {
    sendEach.mockImplementation((messages) =>
      Promise.resolve({
        responses: messages.map((m) =>
          (m as TokenMessage).token.endsWith('7')
            ? { success: false, error: MessagingError.fromServerError('UNREGISTERED') }
            : { success: true, messageId: 'id' },
        ),
        successCount: 0,
        failureCount: 0,
      } as BatchResponse),
    );
    const messages = Array.from({ length: 1201 }, (_, i) => message(i));

    const results = await sender.send(messages);

    expect(sendEach.mock.calls.map(([batch]) => batch.length)).toEqual([500, 500, 201]);
    expect(sendEach.mock.calls.flatMap(([batch]) => batch.map((m) => (m as TokenMessage).token))).toEqual(messages.map((m) => m.token));
    expect(results).toHaveLength(1201);
    results.forEach((result, i) => expect(result.ok ? 'ok' : result.failure).toBe(String(i).endsWith('7') ? 'unregistered' : 'ok'));
  });

  it('sends a visible notification for both platforms with the data payload', async () => {
    sendEach.mockResolvedValue({ responses: [{ success: true }], successCount: 1, failureCount: 0 });
    await sender.send([message(1)]);
    const [[[sent]]] = sendEach.mock.calls;
    expect(sent).toEqual({
      token: 'token-1',
      notification: { title: '삼성전자', body: '새 공시: 분기보고서' },
      data: { rcept_no: '20261120000123', corp_code: '00126380' },
      android: { priority: 'high', ttl: NOTIFICATION_TTL_MS, notification: { tag: '20261120000123', sound: 'default' } },
      apns: {
        headers: {
          'apns-priority': '10',
          'apns-push-type': 'alert',
          // The notification's TTL from the moment it is sent, in whole seconds.
          'apns-expiration': String(Math.floor((SENT_AT.getTime() + NOTIFICATION_TTL_MS) / 1000)),
          'apns-collapse-id': '20261120000123',
        },
        payload: { aps: { sound: 'default' } },
      },
    });
  });

  it('turns a failed call into one classified result per message instead of throwing', async () => {
    sendEach.mockRejectedValue(new AppError('network-timeout', 'Error while making request: timeout.'));
    const results = await sender.send([message(1), message(2)]);
    expect(results).toEqual([
      { ok: false, failure: 'transient', error: expect.stringMatching(/^app\/network-timeout/) },
      { ok: false, failure: 'transient', error: expect.stringMatching(/^app\/network-timeout/) },
    ]);
  });

  it('gives up on a sendEach that does not finish in time: transient for every message, never unregistered', async () => {
    sendEach.mockReturnValue(new Promise<BatchResponse>(() => undefined));
    const results = await sender.send([message(1), message(2)]);
    expect(results).toEqual([
      { ok: false, failure: 'transient', error: 'ETIMEDOUT: sendEach of 2 messages did not finish within 100 ms' },
      { ok: false, failure: 'transient', error: 'ETIMEDOUT: sendEach of 2 messages did not finish within 100 ms' },
    ]);
  });

  it('keeps the per-message answers an HTTP/2 session error still carries', async () => {
    const pending = Promise.resolve({
      responses: [{ success: true }, { success: false, error: MessagingError.fromServerError('INVALID_ARGUMENT') }],
      successCount: 1,
      failureCount: 1,
    } as BatchResponse);
    sendEach.mockRejectedValue(sessionError({ code: 'app/network-error', message: 'GOAWAY' }, pending));
    const results = await sender.send([message(1), message(2), message(3)]);
    expect(results.map((result) => (result.ok ? 'ok' : result.failure))).toEqual(['ok', 'rejected', 'transient']);
  });

  it('stops the start when FIREBASE_SERVICE_ACCOUNT cannot be read', async () => {
    const broken = new FirebasePushSender('/nonexistent/account.json', new SystemClock());
    await expect(broken.onModuleInit()).rejects.toThrow(/^FIREBASE_SERVICE_ACCOUNT must be/);
  });
});

describe('DisabledPushSender', () => {
  afterEach(() => jest.restoreAllMocks());

  it('is off, says so once at start, and sends nothing', async () => {
    const log = jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
    const sender = new DisabledPushSender();
    sender.onModuleInit();
    expect(sender.enabled).toBe(false);
    expect(log.mock.calls).toEqual([['FIREBASE_SERVICE_ACCOUNT is not set: new-filing push notifications are off']]);
    expect(await sender.send([message(1)])).toEqual([{ ok: false, failure: 'rejected', error: 'push is not configured' }]);
    expect(log).toHaveBeenCalledTimes(1);
  });
});
