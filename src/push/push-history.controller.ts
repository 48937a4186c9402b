import { Controller, Get, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentUser } from '../auth/authenticated.decorator';
import type { AuthenticatedUser } from '../auth/jwt.strategy';
import { ApiErrors } from '../common/http/api-errors';
import { ReceiptCursorQuery } from '../common/paging/paging';
import { PushNotification } from './dto/push-notification.dto';
import { type PushHistoryEntry, PushDeliveriesRepository } from './push-deliveries.repository';

class PushHistoryEntryView implements PushHistoryEntry {
  @ApiProperty({ example: '20261121000123' })
  rcept_no: string;

  @ApiProperty({ example: '00126380' })
  corp_code: string;

  @ApiProperty({ example: '삼성전자' })
  corp_name: string;

  @ApiProperty({ type: String, nullable: true, example: '삼성전자' })
  title: string | null;

  @ApiProperty({ type: String, nullable: true, example: '삼성전자, 3,000억 원 규모 유상증자 결정' })
  body: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '2026-11-21T01:02:03.000Z',
    description: 'When the first device got it; null when none did',
  })
  sent_at: string | null;

  @ApiProperty({
    enum: ['sent', 'pending', 'failed', 'unregistered', 'abandoned'],
    description: '`sent` when any device got it; otherwise the last outcome (`pending`: to be retried)',
  })
  outcome: PushHistoryEntry['outcome'];
}

@ApiTags('push')
// What the history lists is what devices received: the document describes it, though no route answers it.
@ApiExtraModels(PushNotification)
@Authenticated()
@Controller('api/v1/push')
export class PushHistoryController {
  constructor(private readonly deliveries: PushDeliveriesRepository) {}

  @Get('history')
  @ApiOperation({
    summary: "The caller's new-filing notifications of the last 30 days, one per filing, newest first",
    description: '`limit` default 20, at most 50; `before` continues after that filing.',
  })
  @ApiOkResponse({ type: [PushHistoryEntryView] })
  @ApiErrors({ VALIDATION_FAILED: 'limit is not an integer, or before is not 14 digits' })
  history(@CurrentUser() user: AuthenticatedUser, @Query() query: ReceiptCursorQuery): Promise<PushHistoryEntry[]> {
    return this.deliveries.history(user.userId, query.limit, query.before);
  }
}
