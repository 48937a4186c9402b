import { randomBytes } from 'node:crypto';
import { PinoLogger } from 'nestjs-pino';
import { Store, storage } from 'nestjs-pino/storage';

/**
 * Runs background work in a logging context of its own: every line it logs carries
 * `job` (what runs) and `jobId` (this run of it), never the `reqId` of the request that
 * happened to start or wake it. Timers and promise chains created inside inherit the context.
 */
export function runAsJob<T>(job: string, work: () => T, jobId = `${job}-${randomBytes(4).toString('hex')}`): T {
  // The service's root logger (LoggingModule.forRoot sets it); without one (unit tests)
  // the work still leaves the request's context.
  const root = PinoLogger.root as PinoLogger['logger'] | undefined;
  if (root === undefined) return storage.exit(work);
  return storage.run(new Store(root.child({ job, jobId })), work);
}
