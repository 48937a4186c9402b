import { hostname } from 'node:os';
import pino, { type DestinationStream, type Logger } from 'pino';
import { version } from '../../package.json';
import type { EnvironmentConfig } from '../config/environment';
import type { LoggingConfig } from './logging.config';
import { SERVICE_NAME } from '../tracing/tracing';
import { Redactor, secretsOf } from './redaction';

const redactors = new WeakMap<Logger, Redactor>();

/**
 * The process's one pino logger: JSON lines in dev and production, one readable
 * line per entry in local. With tracing on, each line written inside a span carries its
 * `trace_id` and `span_id` (src/tracing/tracing.ts). Every line, whoever wrote it (request log, exception
 * filter, services, Nest itself), passes through one `Redactor` on its way out,
 * which knows the secrets of `config`; `protectSecrets` adds those resolved later.
 * `destination` replaces stdout (tests capture the log with it).
 */
export function createRootLogger<C extends EnvironmentConfig & LoggingConfig>(config: C, destination?: DestinationStream): Logger {
  const redactor = new Redactor();
  redactor.addSecrets(secretsOf(config));
  const readable = config.appEnv === 'local' && config.logLevel !== 'silent' && destination === undefined && prettyPrinterInstalled();
  const options: pino.LoggerOptions = {
    level: config.logLevel,
    // What an aggregator needs on every line without help: which service, build and process
    // (`instance` is host:pid, the start of the fleet's instance id), the level as a word.
    base: { service: SERVICE_NAME, version, instance: `${hostname().slice(0, 40)}:${process.pid}` },
    formatters: readable ? undefined : { level: (label) => ({ level: label }) },
    hooks: { streamWrite: (line) => redactor.redact(line) },
    transport: readable
      ? {
          target: 'pino-pretty',
          options: { singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service,version,instance' },
        }
      : undefined,
  };
  const logger = destination === undefined ? pino(options) : pino(options, destination);
  redactors.set(logger, redactor);
  return logger;
}

/** pino-pretty is a development dependency: a production install logs JSON lines in every APP_ENV. */
function prettyPrinterInstalled(): boolean {
  try {
    require.resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}

/**
 * Registers the secrets of the final configuration (local secrets are generated
 * after the logger starts) with the redaction of a root logger. A logger not made
 * by `createRootLogger` (a test's own) is left as it is.
 */
export function protectSecrets(logger: Logger, config: object): void {
  redactors.get(logger)?.addSecrets(secretsOf(config));
}

/**
 * The redaction every line of a root logger passes through, for text that must be
 * redacted before it is cut short (a cut can split a credential so that the redaction of
 * the line no longer recognises its rest). A logger not made by `createRootLogger`: none.
 */
export function redactionOf(logger: Logger): (text: string) => string {
  const redactor = redactors.get(logger);
  return redactor === undefined ? (text) => text : (text) => redactor.redact(text);
}
