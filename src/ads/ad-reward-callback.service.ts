import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { verify } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { InjectConfig } from '../config/config.module';
import { QuotaService } from '../quota/quota.service';
import { UsersRepository } from '../users/users.repository';
import { AdRewardTransactionsRepository } from './ad-reward-transactions.repository';
import { AdVerifierKeys } from './ad-verifier-keys';
import type { AdMobConfig } from './ads.config';
import { parseSsvQuery, type SsvCallback } from './ssv-callback';

/** A callback whose reward happened longer ago than this is refused. */
export const SSV_MAX_AGE_MS = 60 * 60 * 1000;
/** Tolerated clock difference for a timestamp ahead of ours. */
export const SSV_MAX_FUTURE_SKEW_MS = 5 * 60 * 1000;
const USER_ID_PATTERN = /^[1-9]\d{0,9}$/;
const MAX_USER_ID = 2_147_483_647;
const MAX_TRANSACTION_ID_LENGTH = 200;
const MAX_AD_UNIT_LENGTH = 200;

export interface AdRewardOutcome {
  /** False for a repeated callback of a transaction already granted. */
  granted: boolean;
}

/**
 * The production ad reward: the ad network's server-side verification callback.
 * Verified (signature over the raw query, key, freshness, ad unit, user), then
 * recorded and granted in one transaction: the transaction id's primary key lets
 * exactly one of any number of identical callbacks grant.
 */
@Injectable()
export class AdRewardCallbackService {
  private readonly logger = new Logger(AdRewardCallbackService.name);
  /** The numeric parts of the allowed ad unit ids; undefined: any. */
  private readonly allowedAdUnits?: Set<string>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly quota: QuotaService,
    private readonly users: UsersRepository,
    private readonly rewards: AdRewardTransactionsRepository,
    private readonly keys: AdVerifierKeys,
    private readonly clock: Clock,
    @InjectConfig() config: { admob: AdMobConfig },
  ) {
    this.allowedAdUnits = config.admob.adUnitIds && new Set(config.admob.adUnitIds.map(adUnitNumber));
  }

  /** Handles one callback given its raw query string (without `?`). Throws AppError when refused. */
  async handle(rawQuery: string): Promise<AdRewardOutcome> {
    try {
      return await this.verifyAndGrant(rawQuery);
    } catch (error) {
      if (error instanceof AppError) this.logger.warn({ err: error }, `ad reward callback refused (${error.code})`);
      throw error;
    }
  }

  private async verifyAndGrant(rawQuery: string): Promise<AdRewardOutcome> {
    const callback = parseSsvQuery(rawQuery);
    await this.verifySignature(callback);

    const { timestamp, adUnit, userId: rawUserId, transactionId } = callback.params;
    this.checkTimestamp(timestamp);
    if (adUnit !== undefined && adUnit.length > MAX_AD_UNIT_LENGTH) {
      throw new AppError('AD_CALLBACK_INVALID', 'ad_unit is too long');
    }
    if (this.allowedAdUnits !== undefined && (adUnit === undefined || !this.allowedAdUnits.has(adUnitNumber(adUnit)))) {
      throw new AppError('AD_UNIT_NOT_ALLOWED', 'The ad unit is not one of ours');
    }
    if (rawUserId === undefined || !USER_ID_PATTERN.test(rawUserId) || Number(rawUserId) > MAX_USER_ID) {
      throw new AppError('AD_USER_UNKNOWN', 'user_id is not a user id of this service');
    }
    if (!transactionId || transactionId.length > MAX_TRANSACTION_ID_LENGTH) {
      throw new AppError('AD_CALLBACK_INVALID', 'transaction_id is missing or too long');
    }
    const userId = Number(rawUserId);

    const granted = await this.dataSource.transaction(async (manager) => {
      // KEY SHARE: the user cannot be deleted before this transaction ends.
      if (!(await this.users.lockExisting(manager, userId))) throw new AppError('AD_USER_UNKNOWN', 'user_id is not a user of this service');
      const recorded = await this.rewards.record(manager, { transactionId, userId, adUnit: adUnit ?? '', keyId: callback.keyId });
      if (!recorded) return false;
      await this.quota.reward(manager, userId);
      return true;
    });
    if (granted) this.logger.log(`ad reward granted to user ${userId} (transaction ${transactionId})`);
    else this.logger.log(`ad reward callback repeated for transaction ${transactionId}: nothing granted`);
    return { granted };
  }

  private async verifySignature(callback: SsvCallback): Promise<void> {
    const key = await this.keys.keyFor(callback.keyId);
    if (key === undefined) throw new AppError('AD_SIGNATURE_INVALID', 'key_id names no published verifier key');
    let valid: boolean;
    try {
      valid = verify('sha256', Buffer.from(callback.signedMessage, 'utf8'), { key, dsaEncoding: 'der' }, callback.signature);
    } catch {
      valid = false;
    }
    if (!valid) throw new AppError('AD_SIGNATURE_INVALID', 'The signature does not match the callback');
  }

  private checkTimestamp(timestamp: string | undefined): void {
    if (timestamp === undefined || !/^\d{1,16}$/.test(timestamp)) {
      throw new AppError('AD_CALLBACK_INVALID', 'timestamp (milliseconds since the epoch) is missing or malformed');
    }
    const age = this.clock.nowMs() - Number(timestamp);
    if (age > SSV_MAX_AGE_MS) throw new AppError('AD_CALLBACK_EXPIRED', 'The callback is too old');
    if (age < -SSV_MAX_FUTURE_SKEW_MS) throw new AppError('AD_CALLBACK_EXPIRED', 'The callback timestamp is in the future');
  }
}

/** `ca-app-pub-123/456` and `456` name the same ad unit; callbacks carry the number. */
export function adUnitNumber(adUnit: string): string {
  return adUnit.slice(adUnit.lastIndexOf('/') + 1);
}
