import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsString, Matches, ValidateIf } from 'class-validator';
import { Authenticated, CurrentUser } from '../auth/authenticated.decorator';
import type { AuthenticatedUser } from '../auth/jwt.strategy';
import { AppError } from '../common/errors/app-error';
import { KST_TIME_ZONE } from '../common/korea-time';
import { ApiErrors } from '../common/http/api-errors';
import { PushPreferencesRepository } from './push-preferences.repository';
import { type QuietHours, WALL_CLOCK_TIME } from './quiet-hours';

const TIME_MESSAGE = (field: string) => `${field} must be a KST time "HH:MM" (00:00 to 23:59), or null`;

/** Both times, or both null. */
class SetPushPreferencesRequest {
  @ApiProperty({
    type: String,
    nullable: true,
    example: '22:00',
    description: 'Start of the quiet window, KST `HH:MM`; null: no quiet hours',
  })
  @ValidateIf((request: SetPushPreferencesRequest) => request.quiet_start !== null)
  @IsString({ message: TIME_MESSAGE('quiet_start') })
  @Matches(WALL_CLOCK_TIME, { message: TIME_MESSAGE('quiet_start') })
  quiet_start: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '07:00',
    description: 'End of the window, KST `HH:MM`, exclusive; before the start when the window crosses midnight',
  })
  @ValidateIf((request: SetPushPreferencesRequest) => request.quiet_end !== null)
  @IsString({ message: TIME_MESSAGE('quiet_end') })
  @Matches(WALL_CLOCK_TIME, { message: TIME_MESSAGE('quiet_end') })
  quiet_end: string | null;
}

/** The request's fields (its validators apply only to bodies), and the zone they are in. */
class PushPreferencesView extends SetPushPreferencesRequest {
  // The type is named: decorator metadata of `typeof KST_TIME_ZONE` would be the value, not String.
  @ApiProperty({ type: String, example: KST_TIME_ZONE, description: 'The times are KST, whatever the device’s zone' })
  time_zone: typeof KST_TIME_ZONE;
}

function view(hours: QuietHours | null): PushPreferencesView {
  return { quiet_start: hours?.start ?? null, quiet_end: hours?.end ?? null, time_zone: KST_TIME_ZONE };
}

@ApiTags('push')
@Authenticated()
@Controller('api/v1/push/preferences')
export class PushPreferencesController {
  constructor(private readonly preferences: PushPreferencesRepository) {}

  @Get()
  @ApiOperation({ summary: "The caller's quiet hours (null when none)" })
  @ApiOkResponse({ type: PushPreferencesView })
  async get(@CurrentUser() user: AuthenticatedUser): Promise<PushPreferencesView> {
    return view(await this.preferences.quietHours(user.userId));
  }

  @Put()
  @ApiOperation({
    summary: 'Set or clear quiet hours',
    description:
      'New-filing pushes that fall between `quiet_start` and `quiet_end` (KST) are held. When the window ends, each device gets one ' +
      'digest: the title counts the filings, the body names the companies, and a tap opens the newest filing (a single held filing ' +
      'comes as its usual message). Both null turns quiet hours off and sends what is held at once; a changed window holds it until the new end.',
  })
  @ApiOkResponse({ type: PushPreferencesView, description: 'The preferences after the change' })
  @ApiErrors({ VALIDATION_FAILED: 'a time missing or not HH:MM; one time null and the other not; start equal to end' })
  async set(@CurrentUser() user: AuthenticatedUser, @Body() body: SetPushPreferencesRequest): Promise<PushPreferencesView> {
    if ((body.quiet_start === null) !== (body.quiet_end === null)) {
      throw new AppError('VALIDATION_FAILED', 'quiet_start and quiet_end are both times or both null');
    }
    if (body.quiet_start !== null && body.quiet_start === body.quiet_end) {
      throw new AppError('VALIDATION_FAILED', 'quiet_start and quiet_end must differ');
    }
    const hours = body.quiet_start === null || body.quiet_end === null ? null : { start: body.quiet_start, end: body.quiet_end };
    await this.preferences.setQuietHours(user.userId, hours);
    return view(hours);
  }
}
