import type { EnvReader } from '../config/env-reader';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LoggingConfig {
  logLevel: LogLevel;
}

export function loggingConfig(read: EnvReader): LoggingConfig {
  return { logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, 'info') };
}
