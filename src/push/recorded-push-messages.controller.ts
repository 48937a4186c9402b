import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { AdminOnlyOutsideProduction } from '../admin/outside-production.guard';
import { AppError } from '../common/errors/app-error';
import { ApiErrors } from '../common/http/api-errors';
import { type LimitRange, PagingLimit } from '../common/paging/paging';
import { PushData } from './dto/push-notification.dto';
import { PushSender } from './push-sender';
import { type RecordedPushMessage, RecordingPushSender } from './recording-push-sender';

class RecordedPushMessageView implements RecordedPushMessage {
  @ApiProperty({ example: 'dGVzdC10b2tlbi1hbGljZQ' })
  fcm_token: string;

  @ApiProperty({ enum: ['ios', 'android'], nullable: true, description: 'Null when the token was already gone' })
  platform: string | null;

  @ApiProperty({ example: '삼성전자' })
  title: string;

  @ApiProperty({ example: '주요사항보고서(자기주식취득결정)' })
  body: string;

  @ApiProperty({ type: PushData })
  data: Record<string, string>;

  @ApiProperty({ enum: ['sent', 'unregistered'], description: '`unregistered` for tokens starting with `unregistered-`' })
  outcome: 'sent' | 'unregistered';

  @ApiProperty({ example: '2026-11-24T05:01:02.345Z' })
  recorded_at: string;
}

/** The newest recorded pushes: 20 by default, at most 200. */
const RECORDED_MESSAGES_LIMITS: LimitRange = { fallback: 20, max: 200 };

class RecordedPushMessagesQuery {
  @PagingLimit(RECORDED_MESSAGES_LIMITS)
  limit: number;
}

@ApiTags('admin')
@AdminOnlyOutsideProduction()
@Controller('api/v1/admin/push')
export class RecordedPushMessagesController {
  constructor(private readonly sender: PushSender) {}

  @Get('messages')
  @ApiOperation({
    summary: 'Pushes recorded instead of sent (local and dev without FIREBASE_SERVICE_ACCOUNT)',
    description: 'Newest first; `limit` default 20, at most 200. Not in production (404).',
  })
  @ApiOkResponse({ type: RecordedPushMessageView, isArray: true })
  @ApiErrors({ VALIDATION_FAILED: 'limit is not an integer' })
  async messages(@Query() query: RecordedPushMessagesQuery): Promise<RecordedPushMessage[]> {
    if (!(this.sender instanceof RecordingPushSender)) {
      throw new AppError('NOT_FOUND', 'Pushes go to FCM here (FIREBASE_SERVICE_ACCOUNT is set): none is recorded');
    }
    return this.sender.newest(query.limit);
  }
}
