import { Controller, Get, Header, NotFoundException, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { AppError } from '../common/errors/app-error';
import { secretsEqual } from '../common/secrets-equal';
import type { EnvironmentConfig } from '../config/environment';
import { InjectConfig } from '../config/config.module';
import { Metrics } from './metrics';
import type { MetricsConfig } from './metrics.config';

/**
 * `GET /metrics` in the Prometheus text format: open in local and dev; in production
 * only with `Authorization: Bearer <METRICS_TOKEN>`, and absent (404) while it is unset.
 */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: Metrics,
    @InjectConfig() private readonly config: EnvironmentConfig & MetricsConfig,
  ) {}

  @Get()
  @Header('Cache-Control', 'no-store')
  async scrape(@Req() req: Request): Promise<string> {
    this.authorize(req);
    req.res?.type(this.metrics.registry.contentType);
    return this.metrics.registry.metrics();
  }

  private authorize(req: Request): void {
    if (this.config.appEnv !== 'production') return;
    const token = this.config.metricsToken;
    // Nest's own answer to an unknown route, word for word.
    if (token === undefined) throw new NotFoundException(`Cannot ${req.method} ${req.originalUrl}`);
    const presented = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (presented === undefined || !secretsEqual(presented, token)) {
      throw new AppError('UNAUTHORIZED', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>');
    }
  }
}
