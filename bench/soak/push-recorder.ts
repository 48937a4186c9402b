import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Prng } from '../../local/dart-sandbox/prng';
import { isDoomedToken, SEEDED_TOKEN_PREFIX } from './settings';

/** What the recorder answers for one message, in FCM v1's words. */
export type FcmAnswer = 'OK' | 'UNAVAILABLE' | 'QUOTA_EXCEEDED' | 'UNREGISTERED';

/** A batch as the instances' relay sender posts it. */
export interface RelayedBatch {
  instance: number;
  messages: Array<{ token: string; title: string; body: string; data: { rcept_no: string; corp_code: string }; collapseKey: string }>;
}

export interface RelayedAnswer {
  results: Array<{ answer: FcmAnswer; retryAfterS?: number }>;
}

/** One message handed over, and what it was answered. */
export interface RecordedMessage {
  at: number;
  instance: number;
  token: string;
  rceptNo: string;
  /** A digest of held pushes (its title counts the filings), rather than the filing's own message. */
  digest: boolean;
  collapseKey: string;
  answer: FcmAnswer;
}

export const DIGEST_TITLE = /^관심 기업 새 공시 \d+건$/;

/** How long QUOTA_EXCEEDED asks the sender to wait. */
const QUOTA_RETRY_AFTER_S = 20;

/**
 * The push provider every instance sends through (FCM has no emulator): records each message with the
 * time it was handed over and answers it like FCM would. A stable share of the seeded tokens is always
 * UNREGISTERED; while `failing`, most messages are UNAVAILABLE or QUOTA_EXCEEDED and some whole calls
 * fail (HTTP 503), as during an FCM incident.
 */
export class PushRecorder {
  readonly messages: RecordedMessage[] = [];
  /** When each token was first answered UNREGISTERED. */
  readonly unregisteredAt = new Map<string, number>();
  failing = false;
  calls = 0;
  failedCalls = 0;
  private readonly prng: Prng;
  private server?: ReturnType<typeof createServer>;
  url = '';

  constructor(
    private readonly unregisteredShare: number,
    seed: number,
  ) {
    this.prng = new Prng(seed);
  }

  isDoomed(token: string): boolean {
    return token.startsWith(SEEDED_TOKEN_PREFIX) && isDoomedToken(token, this.unregisteredShare);
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/send`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server) return resolve();
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const batch = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RelayedBatch;
    this.calls += 1;
    if (this.failing && this.prng.chance(0.1)) {
      // The whole call fails: the sender cannot tell what became of each message.
      this.failedCalls += 1;
      res.writeHead(503, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { status: 'UNAVAILABLE' } }));
      return;
    }
    const at = Date.now();
    const results = batch.messages.map((message) => {
      const answer = this.answerFor(message.token);
      this.messages.push({
        at,
        instance: batch.instance,
        token: message.token,
        rceptNo: message.data.rcept_no,
        digest: DIGEST_TITLE.test(message.title),
        collapseKey: message.collapseKey,
        answer,
      });
      if (answer === 'UNREGISTERED' && !this.unregisteredAt.has(message.token)) this.unregisteredAt.set(message.token, at);
      return answer === 'QUOTA_EXCEEDED' ? { answer, retryAfterS: QUOTA_RETRY_AFTER_S } : { answer };
    });
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ results } satisfies RelayedAnswer));
  }

  private answerFor(token: string): FcmAnswer {
    if (this.isDoomed(token)) return 'UNREGISTERED';
    if (!this.failing) return 'OK';
    const roll = this.prng.next();
    return roll < 0.5 ? 'UNAVAILABLE' : roll < 0.8 ? 'QUOTA_EXCEEDED' : 'OK';
  }
}
