import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import type { AppConfig } from '../config/app-config';
import { InjectConfig } from '../config/config.module';
import { DartClient } from '../upstream/dart/dart-client';
import type { DartCompany } from '../upstream/dart/dart.types';

/**
 * Company data from the disclosure system's company.json, stored on first read
 * and fetched again once older than COMPANY_MAX_AGE_MS. When the refresh fails,
 * the stored copy is served rather than an error.
 */
@Injectable()
export class CompaniesService {
  private readonly logger = new Logger(CompaniesService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectConfig() private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly dart: DartClient,
  ) {}

  async find(corpCode: string): Promise<DartCompany> {
    const [stored] = await this.dataSource.query<{ data: DartCompany; fetched_at: Date }[]>(
      'SELECT data, fetched_at FROM companies WHERE corp_code = $1',
      [corpCode],
    );
    const fresh = stored && this.clock.nowMs() - stored.fetched_at.getTime() < this.config.dart.companyMaxAgeMs;
    if (fresh) return stored.data;

    let company: DartCompany | null;
    try {
      company = await this.dart.company(corpCode);
    } catch (error) {
      if (stored) {
        this.logger.warn(`company ${corpCode}: refresh failed, serving the stored copy: ${String(error)}`);
        return stored.data;
      }
      this.logger.warn(`company ${corpCode}: fetch failed: ${String(error)}`);
      throw new AppError('UPSTREAM_UNAVAILABLE', 'The disclosure system is unavailable; try again later');
    }
    if (company === null) throw new AppError('NOT_FOUND', `No company ${corpCode}`);

    const data: DartCompany = { ...company, corp_code: corpCode };
    await this.dataSource.query(
      `INSERT INTO companies (corp_code, data, fetched_at) VALUES ($1, $2, $3)
       ON CONFLICT (corp_code) DO UPDATE SET data = EXCLUDED.data, fetched_at = EXCLUDED.fetched_at`,
      [corpCode, JSON.stringify(data), this.clock.now()],
    );
    return data;
  }
}
