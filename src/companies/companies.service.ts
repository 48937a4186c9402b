import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { InjectConfig } from '../config/config.module';
import { upstreamBusy } from '../upstream/dart/dart-budget';
import { DartClient } from '../upstream/dart/dart-client';
import type { DartConfig } from '../upstream/dart/dart.config';
import { DartError, type DartCompany } from '../upstream/dart/dart.types';
import { CompaniesRepository } from './companies.repository';

/** Retry-After of a 503 while the disclosure system is slow or failing: past the HTTP cache's hold on the failure (5 s). */
export const UPSTREAM_RETRY_AFTER_SECONDS = 10;
/** Retry-After while it answers maintenance (800) or refuses the key: neither ends within seconds. */
export const UPSTREAM_DOWN_RETRY_AFTER_SECONDS = 60;
/** The disclosure system's "stopped for maintenance". */
const MAINTENANCE = '800';

/**
 * Company data from the disclosure system's company.json, stored on first read
 * and fetched again once older than COMPANY_MAX_AGE_MS. When the refresh fails,
 * the stored copy is served rather than an error.
 *
 * Anyone may call this, so it spends the disclosure-system budget only on codes
 * the stock sync found in corpCode.xml (`corp_codes`), and only at the lowest
 * priority: any other code is 404 without an upstream call. A caller waits for the
 * disclosure system at most DART_PUBLIC_READ_DEADLINE_MS, budget and retries included.
 */
@Injectable()
export class CompaniesService {
  private readonly logger = new Logger(CompaniesService.name);

  constructor(
    private readonly store: CompaniesRepository,
    @InjectConfig() private readonly config: { dart: DartConfig },
    private readonly clock: Clock,
    private readonly dart: DartClient,
  ) {}

  async find(corpCode: string): Promise<DartCompany> {
    const { known, data: stored, fetchedAt } = await this.store.find(corpCode);
    if (!known) throw notFound(corpCode);
    const fresh = stored && fetchedAt && this.clock.nowMs() - fetchedAt.getTime() < this.config.dart.companyMaxAgeMs;
    if (fresh) return stored;

    let company: DartCompany | null;
    try {
      company = await this.dart.company(corpCode, 'companyRead', { deadlineMs: this.config.dart.publicReadDeadlineMs });
    } catch (error) {
      if (stored) {
        this.logger.warn({ err: error }, `company ${corpCode}: refresh failed, serving the stored copy`);
        return stored;
      }
      this.logger.warn({ err: error }, `company ${corpCode}: fetch failed`);
      if (error instanceof DartError && error.kind === 'budget') throw upstreamBusy(error);
      throw upstreamUnavailable(error);
    }
    if (company === null) throw notFound(corpCode);

    const data: DartCompany = { ...company, corp_code: corpCode };
    await this.store.save(corpCode, data, this.clock.now());
    return data;
  }
}

function notFound(corpCode: string): AppError {
  return new AppError('COMPANY_NOT_FOUND', `No company ${corpCode}`);
}

/** 503 with Retry-After: sooner for a slow or failing disclosure system, later for maintenance or a refused key. */
function upstreamUnavailable(error: unknown): AppError {
  const down = error instanceof DartError && (error.status === MAINTENANCE || error.kind === 'configuration');
  return new AppError(
    'UPSTREAM_UNAVAILABLE',
    'The disclosure system is unavailable; try again later',
    {},
    down ? UPSTREAM_DOWN_RETRY_AFTER_SECONDS : UPSTREAM_RETRY_AFTER_SECONDS,
  );
}
