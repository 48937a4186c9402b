import type { AppConfig } from './app-config';

const REAL_DISCLOSURE_SYSTEM = 'https://opendart.fss.or.kr/api';

/** What the launcher put in place of the outside world (`npm start`'s local stand-ins). */
export interface StandIns {
  /** The variables a stand-in supplied, e.g. DART_API_KEY for the disclosure-system sandbox. */
  supplied: ReadonlySet<string>;
  /** ADMIN_KEY was generated into DATA_DIR/admin-key. */
  generatedAdminKey: boolean;
}

/** When the daily jobs run, as KST wall-clock `HH:MM` (the jobs' own schedule, handed in by the caller). */
export interface DailyJobTimes {
  stockSync: string;
  retention: string;
}

/**
 * The few lines the start logs at info after "listening": what runs, what is off and
 * why, each with the variable that changes it. Pure, so every branch is tested.
 */
export function describeStartup(config: AppConfig, standIns: StandIns, dailyJobTimes: DailyJobTimes): string[] {
  const onOff = (on: boolean, what: string, why: string) => (on ? `${what} on` : `${what} OFF (${why})`);
  const apple = config.subscriptions.apple;
  const appleOn = Boolean(apple.bundleId && apple.issuerId && apple.keyId && apple.privateKey && apple.rootCertificatePaths.length > 0);
  const playOn = Boolean(config.subscriptions.googlePlay.packageName && config.subscriptions.googlePlay.serviceAccount);
  const pubsub = config.subscriptions.pubsub;
  const jobs = config.jobs;

  const admin =
    config.adminKey === undefined
      ? 'admin API: OFF (ADMIN_KEY is not set: every /api/v1/admin route answers 401)'
      : `admin API: on (X-Admin-Key${standIns.generatedAdminKey ? `, the key generated in ${config.dataDir}/admin-key` : ''})`;

  let push: string;
  if (config.firebaseServiceAccount !== undefined) push = 'push: sent through FCM';
  else if (config.appEnv === 'production') push = 'push: OFF (FIREBASE_SERVICE_ACCOUNT is not set)';
  else push = 'push: RECORDED, not sent (FIREBASE_SERVICE_ACCOUNT is not set): GET /api/v1/admin/push/messages';

  const stores = [
    onOff(
      appleOn,
      'App Store verification',
      'APPLE_BUNDLE_ID, APPLE_ISSUER_ID, APPLE_KEY_ID, APPLE_PRIVATE_KEY and APPLE_ROOT_CERTIFICATES are not all set',
    ),
    onOff(playOn, 'Google Play verification', 'GOOGLE_PLAY_PACKAGE_NAME and GOOGLE_PLAY_SERVICE_ACCOUNT are not both set'),
    onOff(
      Boolean(pubsub.audience || pubsub.sharedSecret),
      'Play notifications',
      'neither GOOGLE_PUBSUB_AUDIENCE nor GOOGLE_PUBSUB_SHARED_SECRET is set',
    ),
  ];

  const ai = config.ai;
  const analyzer =
    ai.provider === 'openai'
      ? `analyzer: OpenAI ${ai.openai.model}`
      : ai.provider === 'anthropic'
        ? `analyzer: Anthropic ${ai.anthropic.model}`
        : 'analyzer: the built-in extractive summary, no model (OPENAI_API_KEY and ANTHROPIC_API_KEY are not set)';

  let disclosureSystem: string;
  if (standIns.supplied.has('DART_API_KEY'))
    disclosureSystem = `disclosure system: the local SANDBOX at ${config.dart.baseUrl} (DART_API_KEY is not set)`;
  else if (config.dart.apiKey === undefined)
    disclosureSystem = 'disclosure system: OFF (DART_API_KEY is not set: stored filings are served, nothing new is collected)';
  else if (config.dart.baseUrl === REAL_DISCLOSURE_SYSTEM) disclosureSystem = `disclosure system: ${config.dart.baseUrl}`;
  else disclosureSystem = `disclosure system: ${config.dart.baseUrl} (DART_API_BASE_URL)`;
  const signIn = standIns.supplied.has('IDP1_USERINFO_URL') ? '; sign-in: the local provider (sandbox-<name> tokens)' : '';

  const running: string[] = [];
  const off: string[] = [];
  (jobs.disclosureMonitorAutoStart ? running : off).push(
    jobs.disclosureMonitorAutoStart
      ? `disclosure monitor every ${jobs.disclosureMonitorIntervalMs / 1000} s in KST business hours, ${jobs.disclosureMonitorIdleIntervalMs / 1000} s otherwise`
      : 'disclosure monitor (DISCLOSURE_MONITOR_AUTO_START=false)',
  );
  (jobs.analysisSchedulerAutoStart ? running : off).push(
    jobs.analysisSchedulerAutoStart
      ? `analysis scheduler (${ai.concurrency} at once)`
      : 'analysis scheduler (ANALYSIS_SCHEDULER_AUTO_START=false)',
  );
  (jobs.stockSyncSchedulerEnabled ? running : off).push(
    jobs.stockSyncSchedulerEnabled
      ? `daily stock sync at ${dailyJobTimes.stockSync} KST`
      : 'daily stock sync (STOCK_SYNC_SCHEDULER_ENABLED=false)',
  );
  if (jobs.stockSyncBootstrap) running.push('a stock sync at boot while the master is empty');
  running.push('push dispatcher', 'downgrade cleanup every minute', `retention at ${dailyJobTimes.retention} KST`);
  const jobsLine = `jobs: ${running.join(', ')}${off.length > 0 ? `; off: ${off.join(', ')}` : ''} (the singleton jobs run on one instance of a fleet)`;

  return [admin, push, `stores: ${stores.join('; ')}`, analyzer, `${disclosureSystem}${signIn}`, jobsLine];
}
