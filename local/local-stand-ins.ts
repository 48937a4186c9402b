import * as fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { Prelude } from '../src/main';
import { startDartSandbox } from './dart-sandbox/dart-sandbox';
import { EmbeddedPostgresError, startEmbeddedPostgres } from './embedded-postgres';
import { startLocalIdentityProvider } from './identity-provider/local-identity-provider';
import { exitBySignal, handleRepeatedInterrupts } from './repeated-interrupts';
import { watchTourReadiness } from './tour-readiness';

/**
 * What `npm start` runs before the service: an embedded PostgreSQL when DATABASE_URL is
 * unset, in APP_ENV=local without DART_API_KEY the disclosure-system sandbox, and in
 * APP_ENV=local without IDP1_USERINFO_URL a sign-in provider for `sandbox-<name>` tokens. The
 * service learns of them only through its ordinary variables; one log line per stand-in.
 * With the sandbox and the local sign-in, a line says when the README tour can start.
 */
export const startLocalStandIns: Prelude = async ({ config, log, stopAfterService, whenServing }) => {
  const variables: Record<string, string> = {};

  if (!config.databaseUrl) {
    const clusterDir = path.join(config.dataDir, 'postgres');
    const starting = startEmbeddedPostgres({ clusterDir, databaseName: 'briefing', log: (line) => log.info(line) }).catch(
      (error: unknown) => {
        // The boot failure line names the stand-in that failed.
        if (error instanceof EmbeddedPostgresError) throw new Error(`embedded PostgreSQL: ${error.message}`, { cause: error });
        throw error;
      },
    );
    // The server runs detached and outlives us unless stopped, also when Ctrl-C comes while it starts.
    const started = () => starting.catch(() => undefined);
    stopAfterService(async () => {
      const server = await started();
      if (server === undefined) return;
      await server.stop();
      log.info('embedded PostgreSQL stopped');
    });
    handleRepeatedInterrupts({
      stopNow: async () => (await started())?.stopNow(),
      log,
      underNpm: process.env.npm_lifecycle_event !== undefined,
      exitBy: exitBySignal,
    });
    const embedded = await starting;
    variables.DATABASE_URL = embedded.url;
    log.warn(`DATABASE_URL is not set: using the embedded PostgreSQL in ${embedded.clusterDir} (${new URL(embedded.url).host})`);
  }

  const sandboxed = config.appEnv === 'local' && config.dart.apiKey === undefined;
  if (sandboxed) {
    const sandbox = await startDartSandbox({ companyCount: 115_000, newFilingEveryMs: 20_000 });
    stopAfterService(() => sandbox.close());
    // Where to reach it from a shell (the README tour): POST <origin>/sandbox/filings publishes a filing.
    const sandboxOrigin = new URL(sandbox.baseUrl).origin;
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(path.join(config.dataDir, 'sandbox-url'), `${sandboxOrigin}\n`);
    Object.assign(variables, {
      DART_API_BASE_URL: sandbox.baseUrl,
      DART_API_KEY: sandbox.apiKey,
      // The budget protects a real key; the sandbox is our own server.
      DART_REQUESTS_PER_MINUTE: process.env.DART_REQUESTS_PER_MINUTE ?? '100000',
      DART_REQUESTS_PER_DAY: process.env.DART_REQUESTS_PER_DAY ?? '1000000',
      // The jobs make the sandbox come alive: new filings collected, analysed, and a stock master.
      DISCLOSURE_MONITOR_AUTO_START: process.env.DISCLOSURE_MONITOR_AUTO_START ?? 'true',
      ANALYSIS_SCHEDULER_AUTO_START: process.env.ANALYSIS_SCHEDULER_AUTO_START ?? 'true',
      STOCK_SYNC_BOOTSTRAP: process.env.STOCK_SYNC_BOOTSTRAP ?? 'true',
    });
    log.warn(
      `DART_API_KEY is not set (APP_ENV=local): serving the bundled disclosure-system SANDBOX at ${sandbox.baseUrl} ` +
        `(generated companies and filings; a new filing every 20 s; POST ${sandboxOrigin}/sandbox/filings publishes one now; address in DATA_DIR/sandbox-url)`,
    );
  }

  if (config.appEnv === 'local' && !process.env.IDP1_USERINFO_URL) {
    const identityProvider = await startLocalIdentityProvider();
    stopAfterService(() => identityProvider.close());
    variables.IDP1_USERINFO_URL = identityProvider.userinfoUrl;
    log.warn(
      `IDP1_USERINFO_URL is not set (APP_ENV=local): serving a LOCAL sign-in provider at ${identityProvider.userinfoUrl}; ` +
        'POST /api/v1/auth/idp1/token with {"access_token":"sandbox-<name>"} signs in as that name',
    );
    if (sandboxed) announceTourReadiness(variables.DATABASE_URL ?? config.databaseUrl, config.dataDir, log, stopAfterService, whenServing);
  }
  return variables;
};

/** Once the service listens: the README tour's "ready" line, with what a shell in any folder exports. */
function announceTourReadiness(
  databaseUrl: string | undefined,
  dataDir: string,
  log: { info(line: string): void },
  stopAfterService: (stop: () => Promise<void>) => void,
  whenServing: (serving: (address: AddressInfo) => void) => void,
): void {
  if (databaseUrl === undefined) return;
  whenServing(({ address, family, port }) => {
    const wildcard = address === '::' || address === '0.0.0.0';
    const host = wildcard ? 'localhost' : family === 'IPv6' ? `[${address}]` : address;
    const readiness = watchTourReadiness({
      databaseUrl,
      exports: `API=http://${host}:${port} DATA_DIR=${quoteForShell(dataDir)}`,
      log: (line) => log.info(line),
    });
    stopAfterService(() => readiness.stop());
  });
}

/** A path as one shell word. */
function quoteForShell(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
