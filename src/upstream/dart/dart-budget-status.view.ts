import { ApiProperty } from '@nestjs/swagger';
import type { DartBudgetStatus } from './dart-budget';

/** The disclosure-system budget as the admin statuses show it. */
export class DartBudgetStatusView implements DartBudgetStatus {
  @ApiProperty({ description: 'DART_REQUESTS_PER_DAY' })
  dailyLimit: number;
  @ApiProperty({ description: 'Calls counted today (Korea time)' })
  usedToday: number;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Set while the daily allowance is spent (our count, or the disclosure system answered 020): when calls resume (next KST midnight)',
  })
  exhaustedUntil: string | null;
  @ApiProperty({ description: 'DART_REQUESTS_PER_MINUTE' })
  minuteLimit: number;
  @ApiProperty({ description: 'Calls started in the last 60 seconds' })
  usedLastMinute: number;
  @ApiProperty({ description: 'Callers waiting for a slot' })
  waiting: number;
}
