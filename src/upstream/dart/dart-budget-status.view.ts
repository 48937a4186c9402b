import { ApiProperty } from '@nestjs/swagger';
import type { DartBudgetStatus } from './dart-budget';

/** A budget on a busy weekday, for the examples of the OpenAPI document. */
export const DART_BUDGET_STATUS_EXAMPLE: DartBudgetStatus = {
  dailyLimit: 20000,
  usedToday: 4312,
  exhaustedUntil: null,
  minuteLimit: 600,
  usedLastMinute: 14,
  waiting: 0,
};

/** The disclosure-system budget as the admin statuses show it. */
export class DartBudgetStatusView implements DartBudgetStatus {
  @ApiProperty({ description: 'DART_REQUESTS_PER_DAY', example: DART_BUDGET_STATUS_EXAMPLE.dailyLimit })
  dailyLimit: number;
  @ApiProperty({ description: 'Calls counted today (Korea time)', example: DART_BUDGET_STATUS_EXAMPLE.usedToday })
  usedToday: number;
  @ApiProperty({
    nullable: true,
    type: String,
    example: DART_BUDGET_STATUS_EXAMPLE.exhaustedUntil,
    description:
      'Set while the daily allowance is spent (our count, or the disclosure system answered 020): when calls resume (next KST midnight)',
  })
  exhaustedUntil: string | null;
  @ApiProperty({ description: 'DART_REQUESTS_PER_MINUTE', example: DART_BUDGET_STATUS_EXAMPLE.minuteLimit })
  minuteLimit: number;
  @ApiProperty({ description: 'Calls started in the last 60 seconds', example: DART_BUDGET_STATUS_EXAMPLE.usedLastMinute })
  usedLastMinute: number;
  @ApiProperty({ description: 'Callers waiting for a slot', example: DART_BUDGET_STATUS_EXAMPLE.waiting })
  waiting: number;
}
