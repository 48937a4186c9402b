import { ApiProperty } from '@nestjs/swagger';
import { PREMIUM_TIERS, type PremiumTier } from '../../users/user.entity';
import type { QuotaView } from '../quota.service';

/** The specification's quota response (`GET /api/v1/quota`, `POST /api/v1/quota/ad-reward`). */
export class QuotaResponse implements QuotaView {
  @ApiProperty({ enum: PREMIUM_TIERS, example: 'none', description: 'Active tier: premium_tier while premium_until is in the future' })
  tier: PremiumTier;

  @ApiProperty({ example: 3, description: 'Reveals charged this week minus ad rewards; may be negative' })
  weekly_used: number;

  @ApiProperty({ example: 10, description: '10 (none), 60 (pro) or 200 (max)' })
  weekly_limit: number;

  @ApiProperty({ example: 7, description: 'weekly_limit - weekly_used, never below 0' })
  remaining: number;

  @ApiProperty({
    example: '2026-11-15T15:00:00.000Z',
    description: 'Start of the quota week: Monday 00:00 Korea Standard Time, in UTC (RFC 3339)',
  })
  week_start: string;

  @ApiProperty({ example: '2026-11-22T15:00:00.000Z', description: 'week_start + 7 days (RFC 3339, UTC)' })
  next_reset_at: string;
}
