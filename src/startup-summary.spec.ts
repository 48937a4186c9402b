import { loadConfig } from './app-config';
import { describeStartup } from './startup-summary';

const PRODUCTION = {
  APP_ENV: 'production',
  JWT_SECRET: 'j'.repeat(40),
  DATABASE_URL: 'postgres://briefing@db:5432/briefing',
};
const NO_STAND_INS = { supplied: new Set<string>(), generatedAdminKey: false };
const DAILY_JOB_TIMES = { retention: '04:45', stockSync: '05:00' };

describe('describeStartup', () => {
  it('says what npm start put in place locally, and which jobs run', () => {
    const config = loadConfig({
      APP_ENV: 'local',
      DATA_DIR: '/srv/data',
      ADMIN_KEY: 'generated-admin-key',
      DART_API_KEY: 'sandbox-key',
      DART_API_BASE_URL: 'http://127.0.0.1:41000/api',
      IDP1_USERINFO_URL: 'http://127.0.0.1:41001/v2/user/me',
      DISCLOSURE_MONITOR_AUTO_START: 'true',
      ANALYSIS_SCHEDULER_AUTO_START: 'true',
      STOCK_SYNC_BOOTSTRAP: 'true',
    });
    const lines = describeStartup(
      config,
      {
        supplied: new Set(['DART_API_KEY', 'DART_API_BASE_URL', 'IDP1_USERINFO_URL']),
        generatedAdminKey: true,
      },
      DAILY_JOB_TIMES,
    );
    expect(lines).toEqual([
      'admin API: on (X-Admin-Key, the key generated in /srv/data/admin-key)',
      'push: RECORDED, not sent (FIREBASE_SERVICE_ACCOUNT is not set): GET /api/v1/admin/push/messages',
      'stores: App Store verification OFF (APPLE_BUNDLE_ID, APPLE_ISSUER_ID, APPLE_KEY_ID, APPLE_PRIVATE_KEY and APPLE_ROOT_CERTIFICATES are not all set); ' +
        'Google Play verification OFF (GOOGLE_PLAY_PACKAGE_NAME and GOOGLE_PLAY_SERVICE_ACCOUNT are not both set); ' +
        'Play notifications OFF (neither GOOGLE_PUBSUB_AUDIENCE nor GOOGLE_PUBSUB_SHARED_SECRET is set)',
      'analyzer: the built-in extractive summary, no model (OPENAI_API_KEY and ANTHROPIC_API_KEY are not set)',
      'disclosure system: the local SANDBOX at http://127.0.0.1:41000/api (DART_API_KEY is not set); sign-in: the local provider (sandbox-<name> tokens)',
      'jobs: disclosure monitor every 5 s in KST business hours, 60 s otherwise, analysis scheduler (2 at once), a stock sync at boot while the master is empty, push dispatcher, ' +
        'downgrade cleanup every minute, retention at 04:45 KST; off: daily stock sync (STOCK_SYNC_SCHEDULER_ENABLED=false) (the singleton jobs run on one instance of a fleet)',
    ]);
  });

  it('names what is off in a bare production, and the variable that turns it on', () => {
    const lines = describeStartup(loadConfig(PRODUCTION), NO_STAND_INS, DAILY_JOB_TIMES);
    expect(lines[0]).toBe('admin API: OFF (ADMIN_KEY is not set: every /api/v1/admin route answers 401)');
    expect(lines[1]).toBe('push: OFF (FIREBASE_SERVICE_ACCOUNT is not set)');
    expect(lines[4]).toBe('disclosure system: OFF (DART_API_KEY is not set: stored filings are served, nothing new is collected)');
    expect(lines[5]).toMatch(
      /^jobs: disclosure monitor every 5 s in KST business hours, 60 s otherwise, analysis scheduler \(2 at once\), daily stock sync at 05:00 KST, a stock sync at boot/,
    );
    expect(lines[5]).not.toContain('off:');
  });

  it('says what a configured production uses', () => {
    const lines = describeStartup(
      loadConfig({
        ...PRODUCTION,
        ADMIN_KEY: 'a'.repeat(32),
        DART_API_KEY: 'k'.repeat(40),
        OPENAI_API_KEY: 'sk-test',
        FIREBASE_SERVICE_ACCOUNT: '{"project_id":"p"}',
        GOOGLE_PLAY_PACKAGE_NAME: 'com.example.app',
        GOOGLE_PLAY_SERVICE_ACCOUNT: '{"client_email":"x@y"}',
        GOOGLE_PUBSUB_SHARED_SECRET: 's'.repeat(32),
        DISCLOSURE_MONITOR_AUTO_START: 'false',
      }),
      NO_STAND_INS,
      DAILY_JOB_TIMES,
    );
    expect(lines.slice(0, 5)).toEqual([
      'admin API: on (X-Admin-Key)',
      'push: sent through FCM',
      'stores: App Store verification OFF (APPLE_BUNDLE_ID, APPLE_ISSUER_ID, APPLE_KEY_ID, APPLE_PRIVATE_KEY and APPLE_ROOT_CERTIFICATES are not all set); ' +
        'Google Play verification on; Play notifications on',
      'analyzer: OpenAI gpt-4.1-mini',
      'disclosure system: https://opendart.fss.or.kr/api',
    ]);
    expect(lines[5]).toContain('; off: disclosure monitor (DISCLOSURE_MONITOR_AUTO_START=false)');
  });
});
