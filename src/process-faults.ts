import type { Logger } from 'pino';
import { isDatabaseUnavailable } from './database/database-errors';

export type UncaughtKind = 'exception' | 'rejection';
/** `database`: an error that says PostgreSQL went away or did not answer (database-errors.ts). */
export type UncaughtSource = 'database' | 'other';

export interface ProcessFaultHooks {
  /** True until the service listens: any fault then fails the start. */
  booting(): boolean;
  failBoot(error: unknown): void;
  /** Stops the service and exits with 1. */
  shutdown(why: string): void;
  /** Counts a fault the service kept running through. */
  survived(kind: UncaughtKind, source: UncaughtSource): void;
}

/**
 * The last line of defence of a serving process, after every known path is handled where it
 * starts (postgres-client.ts, the jobs' and fleet's own catches):
 *   - an unhandled rejection is logged and the service keeps running, as a stray rejection
 *     in a background job must not take the API down;
 *   - an uncaught exception that is a lost or unreachable database is logged and the service
 *     keeps running: the database's outage is answered 503 meanwhile and the pool reconnects
 *     (docs/security.md, "Faults"). pg has already given up the session it came from, so no
 *     state of ours is left half-changed;
 *   - any other uncaught exception stops the service (exit 1): its state is unknown.
 */
export function handleProcessFaults(target: NodeJS.EventEmitter, log: Logger, hooks: ProcessFaultHooks): void {
  target.on('uncaughtException', (error: unknown) => {
    if (hooks.booting()) return void hooks.failBoot(error);
    if (isDatabaseUnavailable(error)) {
      log.error({ err: error }, 'uncaught database error (the service keeps running)');
      return count(hooks, 'exception', 'database');
    }
    log.fatal({ err: error }, 'uncaught exception');
    hooks.shutdown('uncaught exception');
  });
  target.on('unhandledRejection', (reason: unknown) => {
    if (hooks.booting()) return void hooks.failBoot(reason);
    log.error({ err: reason }, 'unhandled promise rejection (the service keeps running)');
    count(hooks, 'rejection', isDatabaseUnavailable(reason) ? 'database' : 'other');
  });
}

/** A throw out of an 'uncaughtException' listener would end the process after all. */
function count(hooks: ProcessFaultHooks, kind: UncaughtKind, source: UncaughtSource): void {
  try {
    hooks.survived(kind, source);
  } catch {
    // Only the metric is lost; the line above is logged.
  }
}
