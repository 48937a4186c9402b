import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppError } from '../common/errors/app-error';
import type { QuotaView } from '../quota/quota.service';
import { QuotaService, toView } from '../quota/quota.service';
import type { AnalysisResult } from './analyzers/analysis-result.schema';
import { AnalysesRepository } from './analyses.repository';
import { RevealedDisclosuresRepository } from './revealed-disclosures.repository';

/** A filing whose text is shorter than this is "short": its analysis costs signed-in callers no quota. */
export const SHORT_DOC_THRESHOLD = 1000;

/** The specification's analysis meta response. */
export interface AnalysisMeta {
  status: 'PENDING' | 'COMPLETED' | 'UNAVAILABLE';
  doc_length: number | null;
  is_short: boolean;
  already_revealed: boolean;
  one_liner: string | null;
  result: AnalysisResult | null;
}

export interface RevealAnswer {
  rcept_no: string;
  one_liner: string;
  result: AnalysisResult;
  quota: QuotaView;
}

/** Reads of stored analyses (never an AI call) and the reveal that spends quota. */
@Injectable()
export class AnalysisService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly quota: QuotaService,
    private readonly reveals: RevealedDisclosuresRepository,
    private readonly analyses: AnalysesRepository,
  ) {}

  /** The analysis meta response; `userId` is null for an anonymous caller. */
  async meta(rceptNo: string, userId: number | null): Promise<AnalysisMeta> {
    const row = await this.analyses.findForViewer(rceptNo, userId);
    if (!row) throw new AppError('NOT_FOUND', `No filing ${rceptNo}`);
    const completed = row.status === 'COMPLETED';
    const isShort = completed && row.doc_length !== null && row.doc_length < SHORT_DOC_THRESHOLD;
    const alreadyRevealed = row.revealed;
    return {
      status: completed ? 'COMPLETED' : row.status === 'UNAVAILABLE' ? 'UNAVAILABLE' : 'PENDING',
      doc_length: row.doc_length,
      is_short: isShort,
      already_revealed: alreadyRevealed,
      one_liner: completed ? row.one_liner : null,
      // Anonymous callers get the summary only, short filings included; a signed-in
      // caller gets the result of a short filing or of one they revealed.
      result: completed && userId !== null && (isShort || alreadyRevealed) ? row.result : null,
    };
  }

  /**
   * The reveal rules, in order, in one transaction: the analysis must be COMPLETED;
   * the revealed record is inserted unless it exists (a concurrent duplicate inserts
   * nothing); one unit is charged only for a new record of a filing that is not
   * short, by a conditional update that cannot pass the limit; a spent quota rolls
   * everything back and answers 429 QUOTA_EXHAUSTED.
   */
  async reveal(userId: number, rceptNo: string): Promise<RevealAnswer> {
    return this.dataSource.transaction(async (manager) => {
      const row = await this.analyses.findForFiling(manager, rceptNo);
      if (!row) throw new AppError('NOT_FOUND', `No filing ${rceptNo}`);
      if (row.status !== 'COMPLETED' || row.result === null || row.one_liner === null) {
        throw new AppError('NOT_READY', 'The analysis of this filing is not ready');
      }
      const recorded = await this.reveals.record(manager, userId, rceptNo);
      const state = await this.quota.current(manager, userId);
      const isShort = row.doc_length !== null && row.doc_length < SHORT_DOC_THRESHOLD;
      if (recorded && !isShort) {
        const used = await this.quota.charge(manager, userId, state.weeklyLimit);
        if (used === null) {
          throw new AppError('QUOTA_EXHAUSTED', 'The weekly quota is spent; watch an ad to get one more', {
            can_watch_ad: true,
          });
        }
        state.weeklyUsed = used;
      }
      return { rcept_no: rceptNo, one_liner: row.one_liner, result: row.result, quota: toView(state) };
    });
  }
}
