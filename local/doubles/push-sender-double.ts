import { type PushMessage, PushSender, type PushSendResult } from '../../src/push/push-sender';

/** Answers one call: one result per message, in order. */
export type PushCallAnswer = (messages: PushMessage[], call: number) => PushSendResult[] | Promise<PushSendResult[]>;

/**
 * A PushSender double for tests and the benchmark (FCM has no emulator): records
 * every call and answers every message `{ ok: true }` at once unless told otherwise.
 */
export class PushSenderDouble extends PushSender {
  readonly enabled = true;
  /** The messages of each call, oldest first. */
  readonly calls: PushMessage[][] = [];
  /** `performance.now()` when each call was handed its messages. */
  readonly callTimes: number[] = [];
  private answer: PushCallAnswer = (messages) => messages.map(() => ({ ok: true }));

  /** Answers each message by itself (`call` counts from 1 over the double's life). */
  answerEach(answer: (message: PushMessage, call: number) => PushSendResult): void {
    this.answer = (messages, call) => messages.map((message) => answer(message, call));
  }

  /** Answers whole calls: to block, throw, or answer late. */
  answerCalls(answer: PushCallAnswer): void {
    this.answer = answer;
  }

  send(messages: PushMessage[]): Promise<PushSendResult[]> {
    this.calls.push([...messages]);
    this.callTimes.push(performance.now());
    const call = this.calls.length;
    return Promise.resolve().then(() => this.answer(messages, call));
  }

  /** Every message handed over, in order. */
  messages(): PushMessage[] {
    return this.calls.flat();
  }

  /** How many times each token was handed a message of `rceptNo`. */
  sendsPerToken(rceptNo: string): Map<string, number> {
    const counts = new Map<string, number>();
    for (const message of this.messages()) {
      if (message.data.rcept_no === rceptNo) counts.set(message.token, (counts.get(message.token) ?? 0) + 1);
    }
    return counts;
  }
}
