import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { InjectConfig } from '../config/config.module';
import { upstreamBusy } from '../upstream/dart/dart-budget';
import { DartClient } from '../upstream/dart/dart-client';
import type { DartConfig } from '../upstream/dart/dart.config';
import { DartError, type DartCompany } from '../upstream/dart/dart.types';
import { CompaniesRepository } from './companies.repository';

/**
 * Company data from the disclosure system's company.json, stored on first read
 * and fetched again once older than COMPANY_MAX_AGE_MS. When the refresh fails,
 * the stored copy is served rather than an error.
 *
 * Anyone may call this, so it spends the disclosure-system budget only on codes
 * the stock sync found in corpCode.xml (`corp_codes`), and only at the lowest
 * priority: any other code is 404 without an upstream call.
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
      company = await this.dart.company(corpCode, 'companyRead');
    } catch (error) {
      if (stored) {
        this.logger.warn({ err: error }, `company ${corpCode}: refresh failed, serving the stored copy`);
        return stored;
      }
      this.logger.warn({ err: error }, `company ${corpCode}: fetch failed`);
      if (error instanceof DartError && error.kind === 'budget') throw upstreamBusy(error);
      throw new AppError('UPSTREAM_UNAVAILABLE', 'The disclosure system is unavailable; try again later');
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
