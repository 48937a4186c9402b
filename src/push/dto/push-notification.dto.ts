import { ApiProperty } from '@nestjs/swagger';

/*
 * The push a device receives, for the OpenAPI document: no route answers it, FCM delivers it to the
 * tokens of `POST /api/v1/push/fcm-token`. The shape is `toFirebaseMessage` (firebase-push-sender.ts)
 * as FCM's HTTP v1 API takes it; the text is `newFilingMessage` and `digestText` (new-filing-message.ts).
 * test/e2e/openapi-document.e2e-spec.ts fails when the two stop having the same fields.
 */

/** What the app reads when the notification is tapped. */
export class PushData {
  @ApiProperty({
    example: '20261124000123',
    description: 'The filing to open (`GET /api/v1/disclosures/{rceptNo}`); a digest: its newest filing',
  })
  rcept_no: string;

  @ApiProperty({ example: '00126380', description: "The filing's company" })
  corp_code: string;
}

class PushNotificationText {
  @ApiProperty({
    example: '삼성전자',
    description: 'A new filing: the company name. A quiet-hours digest: `관심 기업 새 공시 {n}건` (n filings held)',
  })
  title: string;

  @ApiProperty({
    example: '삼성전자, 시설자금 1조원 규모 유상증자 결정',
    description:
      'A new filing: its one-line summary, or `새 공시: {report name}` when no summary was ready in time (90 s by default). ' +
      'A digest: the companies, newest first, three named (`가나전자, 다라화학, 마바전자 외 2곳`). At most 120 characters',
  })
  body: string;
}

class PushAndroidNotification {
  @ApiProperty({
    example: '20261124000123',
    description: 'The collapse identity, `data.rcept_no`: a copy sent again replaces the one shown',
  })
  tag: string;

  @ApiProperty({ example: 'default' })
  sound: string;
}

class PushAndroidConfig {
  @ApiProperty({ enum: ['high'], example: 'high' })
  priority: string;

  @ApiProperty({ example: '86400s', description: 'A day: a device offline longer never gets it' })
  ttl: string;

  @ApiProperty({ type: PushAndroidNotification })
  notification: PushAndroidNotification;
}

class PushApnsHeaders {
  @ApiProperty({ enum: ['10'], example: '10' })
  'apns-priority': string;

  @ApiProperty({ enum: ['alert'], example: 'alert' })
  'apns-push-type': string;

  @ApiProperty({ example: '1795586400', description: 'Unix seconds, a day after sending' })
  'apns-expiration': string;

  @ApiProperty({
    example: '20261124000123',
    description: 'The collapse identity, `data.rcept_no`: a copy sent again replaces the one shown',
  })
  'apns-collapse-id': string;
}

class PushAps {
  @ApiProperty({ example: 'default' })
  sound: string;
}

class PushApnsPayload {
  @ApiProperty({ type: PushAps, description: 'FCM adds `alert` from `notification`' })
  aps: PushAps;
}

class PushApnsConfig {
  @ApiProperty({ type: PushApnsHeaders })
  headers: PushApnsHeaders;

  @ApiProperty({ type: PushApnsPayload })
  payload: PushApnsPayload;
}

/**
 * One notification to one device, as the service hands it to FCM (HTTP v1 `message`). No
 * `collapse_key`: FCM keeps four per offline device, so filings would replace each other.
 */
export class PushNotification {
  @ApiProperty({ example: 'fMEGq3kZQ0e0b8sX:APA91bHk2vR7xq', description: 'The device, as registered at `POST /api/v1/push/fcm-token`' })
  token: string;

  @ApiProperty({ type: PushNotificationText })
  notification: PushNotificationText;

  @ApiProperty({ type: PushData, description: 'Android: the message data; iOS: top-level keys of the payload beside `aps`' })
  data: PushData;

  @ApiProperty({ type: PushAndroidConfig })
  android: PushAndroidConfig;

  @ApiProperty({ type: PushApnsConfig })
  apns: PushApnsConfig;
}
