import type { LoggerService } from '@nestjs/common';

/**
 * The framework's start-up narration: a line per module, controller and route (about
 * 75 at every start). Useful when debugging wiring, noise otherwise.
 */
const FRAMEWORK_NARRATION = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

/** Nest's logger with the framework's start-up narration moved from info to debug; everything else as is. */
export class QuietFrameworkLogger implements LoggerService {
  constructor(private readonly inner: LoggerService) {}

  log(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams.at(-1);
    if (typeof context === 'string' && FRAMEWORK_NARRATION.has(context)) this.inner.debug?.(message, ...optionalParams);
    else this.inner.log(message, ...optionalParams);
  }

  error(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.error(message, ...optionalParams);
  }

  warn(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.warn(message, ...optionalParams);
  }

  debug(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.debug?.(message, ...optionalParams);
  }

  verbose(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.verbose?.(message, ...optionalParams);
  }

  fatal(message: unknown, ...optionalParams: unknown[]): void {
    (this.inner.fatal ?? this.inner.error).call(this.inner, message, ...optionalParams);
  }
}
