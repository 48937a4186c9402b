import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckResult, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { AppError } from '../common/errors/app-error';
import { ErrorBody } from '../common/errors/error-body';
import { DATABASE_RETRY_AFTER_SECONDS } from '../database/database-errors';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
  ) {}

  @Get()
  @HealthCheck()
  @ApiOperation({ summary: 'Liveness: the process serves HTTP' })
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck()
  @ApiOperation({ summary: 'Readiness: the database answers' })
  @ApiOkResponse({ description: 'Ready' })
  @ApiServiceUnavailableResponse({ type: ErrorBody, description: 'The database is unreachable (code DATABASE_UNAVAILABLE, with Retry-After)' })
  async ready(): Promise<HealthCheckResult> {
    try {
      return await this.health.check([() => this.database.pingCheck('database', { timeout: 2000 })]);
    } catch (error) {
      // Same answer as any other call while the database is down.
      if (error instanceof ServiceUnavailableException) {
        throw new AppError('DATABASE_UNAVAILABLE', 'The database is unavailable', {}, DATABASE_RETRY_AFTER_SECONDS);
      }
      throw error;
    }
  }
}
