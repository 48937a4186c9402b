import { UsersAndIdentities1763700000000 } from './1763700000000-users-and-identities';
import { FilingsAndCompanies1763800000000 } from './1763800000000-filings-and-companies';
import { AnalysesAndQuota1763900000000 } from './1763900000000-analyses-and-quota';
import { WatchlistAndPush1764000000000 } from './1764000000000-watchlist-and-push';
import { Subscriptions1764200000000 } from './1764200000000-subscriptions';
import { SummarisedAnalysesIndex1764300000000 } from './1764300000000-summarised-analyses-index';
import { RateLimitBuckets1764430000000 } from './1764430000000-rate-limit-buckets';
import { Fleet1764400000000 } from './1764400000000-fleet';
import { JobRuns1764410000000 } from './1764410000000-job-runs';
import { SharedDartBudget1764420000000 } from './1764420000000-shared-dart-budget';
import { RecordedPushMessages1764440000000 } from './1764440000000-recorded-push-messages';
import { UrgentAnalyses1764450000000 } from './1764450000000-urgent-analyses';
import { PushHistoryAndRetention1764460000000 } from './1764460000000-push-history-and-retention';
import { PushPreferences1764470000000 } from './1764470000000-push-preferences';
import { ChunkedPushExpansion1764480000000 } from './1764480000000-chunked-push-expansion';
import { StorePurchaseState1764490000000 } from './1764490000000-store-purchase-state';
import { JobStates1764500000000 } from './1764500000000-job-states';
import { PushDeliveryRechecks1764515000000 } from './1764515000000-push-delivery-rechecks';
import { AnalysisOutages1764525000000 } from './1764525000000-analysis-outages';
import { AnalysisDartOutages1764531000000 } from './1764531000000-analysis-dart-outages';
import { FcmSendBudget1764536000000 } from './1764536000000-fcm-send-budget';

/** Every migration, oldest first. Applied at start; forward-only. */
export const MIGRATIONS = [
  UsersAndIdentities1763700000000,
  FilingsAndCompanies1763800000000,
  AnalysesAndQuota1763900000000,
  WatchlistAndPush1764000000000,
  Subscriptions1764200000000,
  SummarisedAnalysesIndex1764300000000,
  Fleet1764400000000,
  JobRuns1764410000000,
  SharedDartBudget1764420000000,
  RateLimitBuckets1764430000000,
  RecordedPushMessages1764440000000,
  UrgentAnalyses1764450000000,
  PushHistoryAndRetention1764460000000,
  PushPreferences1764470000000,
  ChunkedPushExpansion1764480000000,
  StorePurchaseState1764490000000,
  JobStates1764500000000,
  PushDeliveryRechecks1764515000000,
  AnalysisOutages1764525000000,
  AnalysisDartOutages1764531000000,
  FcmSendBudget1764536000000,
];
