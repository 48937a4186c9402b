import { Logger, type OnModuleInit } from '@nestjs/common';
import { type PushMessage, PushSender, type PushSendResult } from './push-sender';

/** Push without FIREBASE_SERVICE_ACCOUNT: nothing is ever sent, and that is said once at start. */
export class DisabledPushSender extends PushSender implements OnModuleInit {
  readonly enabled = false;
  private readonly logger = new Logger('Push');

  onModuleInit(): void {
    // Debug: the start summary says it at info (src/startup-summary.ts).
    this.logger.debug('FIREBASE_SERVICE_ACCOUNT is not set: new-filing push notifications are off');
  }

  send(messages: PushMessage[]): Promise<PushSendResult[]> {
    // The dispatcher never calls a disabled sender; answering keeps the contract if something does.
    return Promise.resolve(messages.map(() => ({ ok: false, failure: 'rejected', error: 'push is not configured' })));
  }
}
