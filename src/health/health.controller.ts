import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckResult, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { AppError } from '../common/errors/app-error';
import { InjectConfig } from '../config/config.module';
import { DATABASE_RETRY_AFTER_SECONDS } from '../database/database-errors';
import { missingRequiredSettings, type RequiredSettingsConfig } from './required-settings';
import { ApiErrors, ApiWithoutDatabase } from '../common/http/api-errors';

@ApiTags('health')
@Controller('health')
export class HealthController {
  private readonly missingSettings: string[];

  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    @InjectConfig() config: RequiredSettingsConfig,
  ) {
    this.missingSettings = missingRequiredSettings(config);
  }

  // Not terminus's own OpenAPI answers: its 503 body is not what these send (errors are ErrorBody), and liveness never answers 503.
  @Get()
  @HealthCheck({ noCache: true, swaggerDocumentation: false })
  @ApiOperation({ summary: 'Liveness: the process serves HTTP' })
  @ApiOkResponse({ description: 'Serving', schema: { type: 'object', example: { status: 'ok', info: {}, error: {}, details: {} } } })
  @ApiWithoutDatabase()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck({ noCache: true, swaggerDocumentation: false })
  @ApiOperation({ summary: 'Readiness: the database answers, and in production every required upstream setting is present' })
  @ApiOkResponse({
    description: 'Ready',
    schema: {
      type: 'object',
      example: { status: 'ok', info: { database: { status: 'up' } }, error: {}, details: { database: { status: 'up' } } },
    },
  })
  @ApiErrors({
    DATABASE_UNAVAILABLE: 'the database is unreachable (with Retry-After)',
    SERVICE_UNAVAILABLE: 'a production instance lacks a required setting such as DART_API_KEY (it never becomes ready)',
  })
  async ready(): Promise<HealthCheckResult> {
    if (this.missingSettings.length > 0) {
      throw new AppError('SERVICE_UNAVAILABLE', `Not ready: required in production but not set: ${this.missingSettings.join(', ')}`);
    }
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
