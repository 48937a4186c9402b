import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, Max, Min, ValidateIf } from 'class-validator';
import type { PremiumTier } from '../../users/user.entity';

export class SetTierRequest {
  @ApiProperty({ enum: ['none', 'pro', 'max'], example: 'max' })
  @IsIn(['none', 'pro', 'max'], { message: 'tier must be one of none, pro, max' })
  tier: PremiumTier;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: 3650,
    example: 30,
    description: 'How long `pro`/`max` lasts from now; required for them, ignored for `none`',
  })
  @ValidateIf((request: SetTierRequest) => request.tier !== 'none')
  @IsInt({ message: 'days must be an integer from 1 to 3650' })
  @Min(1, { message: 'days must be an integer from 1 to 3650' })
  @Max(3650, { message: 'days must be an integer from 1 to 3650' })
  days?: number;
}

export class UserTierResponse {
  @ApiProperty({ example: 42 })
  user_id: number;

  @ApiProperty({ enum: ['none', 'pro', 'max'], description: 'The stored tier after the change' })
  tier: PremiumTier;

  @ApiProperty({ type: String, nullable: true, example: '2026-12-24T05:00:00.000Z' })
  premium_until: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'The downgrade moment: set by a drop, starting the 7-day watchlist cleanup timer; cleared by a rise',
  })
  downgraded_at: string | null;
}
