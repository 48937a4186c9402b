import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Clock } from '../common/clock';
import type { EnvironmentConfig } from '../config/environment';
import { InjectConfig } from '../config/config.module';
import { version as VERSION } from '../../package.json';
import { ApiWithoutDatabase } from '../common/http/api-errors';
import { AdminOnly } from './admin-key.guard';

class AdminStatusResponse {
  @ApiProperty({ example: 'ok' })
  status: 'ok';

  @ApiProperty({ enum: ['local', 'dev', 'production'] })
  app_env: string;

  @ApiProperty({ example: '0.1.0' })
  version: string;

  @ApiProperty({ description: 'When this instance started (RFC 3339, UTC)', example: '2026-11-24T05:00:00.000Z' })
  started_at: string;
}

@ApiTags('admin')
@AdminOnly()
@Controller('api/v1/admin')
export class AdminController {
  private readonly startedAt: Date;

  constructor(
    @InjectConfig() private readonly config: EnvironmentConfig,
    clock: Clock,
  ) {
    this.startedAt = clock.now();
  }

  @Get('status')
  @ApiOperation({ summary: 'Instance status for operators' })
  @ApiWithoutDatabase()
  @ApiOkResponse({ type: AdminStatusResponse })
  status(): AdminStatusResponse {
    return { status: 'ok', app_env: this.config.appEnv, version: VERSION, started_at: this.startedAt.toISOString() };
  }
}
