import { type DartSandbox, type DartSandboxOptions, startDartSandbox } from '../../local/dart-sandbox/dart-sandbox';
import { FakeClock } from './fake-clock';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp, type TestAppOptions } from './test-app';

export { eventually } from './eventually';

export const ADMIN_KEY = 'admin-key-for-tests';

export interface SandboxedApp extends TestApp {
  sandbox: DartSandbox;
}

/**
 * The app wired to a disclosure-system sandbox over real HTTP, sharing one fake
 * clock, with an admin key, fast upstream retries and relaxed rate limits.
 */
/** The environment of an app wired to `sandbox`: the admin key, and fast upstream retries and timeouts. */
export function sandboxEnv(sandbox: DartSandbox): Record<string, string> {
  return {
    ADMIN_KEY,
    DART_API_BASE_URL: sandbox.baseUrl,
    DART_API_KEY: sandbox.apiKey,
    DART_MAX_ATTEMPTS: '2',
    DART_RETRY_BASE_MS: '1',
    DART_TIMEOUT_MS: '2000',
  };
}

export async function startSandboxedApp(
  options: { sandbox?: DartSandboxOptions; app?: TestAppOptions; start?: Date } = {},
): Promise<SandboxedApp> {
  const clock = new FakeClock(options.start);
  const sandbox = await startDartSandbox({ companyCount: 400, seed: 7, now: () => clock.now(), ...options.sandbox });
  const app = await startTestApp({
    rateLimits: RELAXED_RATE_LIMITS,
    clock,
    ...options.app,
    env: {
      ...sandboxEnv(sandbox),
      DISCLOSURE_MONITOR_AUTO_START: 'false',
      ...options.app?.env,
    },
  });
  return {
    ...app,
    sandbox,
    close: async () => {
      await app.close();
      await sandbox.close();
    },
  };
}
