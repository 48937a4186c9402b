import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** App Store Server Notifications V2, as Apple posts it. */
export class AppStoreNotificationBody {
  @ApiProperty({
    description: 'The notification as a JWS signed by Apple (its x5c chain must end at APPLE_ROOT_CERTIFICATES)',
    example:
      'eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlFTURDQ0E3YWdBd0lCQWdJUWZUbGZkMGZOdkZXdnpDMVlJQU5zWGpBS0JnZ3Foa2pPUFFRREF6QjFNVVF3UWdZRFZRUUREVHRCY0hCc1pTQlhiM0pzWkhkcFpHVWdSR1YyWld4dmNHVnlJRkpsYkdGMGFXOXVjeUJEWlhKMGFXWnBZMkYwYVc5dUlFRjFkR2h2Y21sMGVURUxNQWtHQTFVRUN3d0NSell4RXpBUkJnTlZCQW9NQ2tGd2NHeGxJRWx1WXk0eEN6QUpCZ05WQkFZVEFsVlQ…',
  })
  signedPayload: string;
}

class PubSubMessage {
  @ApiProperty({
    description:
      'Base64 of the Real-time developer notification JSON: packageName, subscriptionNotification { notificationType, purchaseToken, subscriptionId } or voidedPurchaseNotification',
    example:
      'eyJ2ZXJzaW9uIjoiMS4wIiwicGFja2FnZU5hbWUiOiJjb20uZXhhbXBsZS5icmllZmluZyIsInN1YnNjcmlwdGlvbk5vdGlmaWNhdGlvbiI6eyJub3RpZmljYXRpb25UeXBlIjo0LCJwdXJjaGFzZVRva2VuIjoicHVyY2hhc2UtdG9rZW4iLCJzdWJzY3JpcHRpb25JZCI6InNlcnZpY2UucHJvLm1vbnRobHkifX0=',
  })
  data: string;

  @ApiProperty({ description: 'Pub/Sub message id: a redelivery of the same id is answered `duplicate`', example: '1234567890123456' })
  messageId: string;

  @ApiPropertyOptional({ example: '2026-11-24T05:00:00.000Z' })
  publishTime?: string;
}

/** A Pub/Sub push of a Google Play Real-time developer notification. */
export class PubSubPushBody {
  @ApiProperty({ type: PubSubMessage })
  message: PubSubMessage;

  @ApiProperty({ example: 'projects/briefing/subscriptions/play-notifications' })
  subscription: string;
}

export class StoreNotificationAnswer {
  @ApiProperty({
    enum: ['applied', 'stale', 'ignored', 'duplicate', 'rejected'],
    example: 'applied',
    description:
      "`applied`: the purchase's state was recorded and the tier derived again; `stale`: older than the purchase's stored " +
      'state, not applied; `ignored`: nothing to do (a test or another app); `duplicate`: already processed; ' +
      '`rejected` (Google Play only): a message that can never be processed, acknowledged so that it is not redelivered',
  })
  status: 'applied' | 'stale' | 'ignored' | 'duplicate' | 'rejected';
}
