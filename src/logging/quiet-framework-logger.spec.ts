import type { LoggerService } from '@nestjs/common';
import { QuietFrameworkLogger } from './quiet-framework-logger';

function recorder() {
  const calls: Array<[string, unknown[]]> = [];
  const record =
    (level: string) =>
    (...args: unknown[]) =>
      void calls.push([level, args]);
  const inner: LoggerService = {
    log: record('log'),
    error: record('error'),
    warn: record('warn'),
    debug: record('debug'),
    verbose: record('verbose'),
    fatal: record('fatal'),
  };
  return { inner, calls };
}

describe('QuietFrameworkLogger', () => {
  it.each(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication'])(
    'moves the framework narration of %s to debug',
    (context) => {
      const { inner, calls } = recorder();
      new QuietFrameworkLogger(inner).log('wired', context);
      expect(calls).toEqual([['debug', ['wired', context]]]);
    },
  );

  it('keeps every other line at its level', () => {
    const { inner, calls } = recorder();
    const logger = new QuietFrameworkLogger(inner);
    logger.log('monitor started', 'DisclosureMonitorService');
    logger.log('no context');
    logger.warn('careful', 'InstanceLoader');
    logger.error('broken', 'RoutesResolver');
    expect(calls.map(([level]) => level)).toEqual(['log', 'log', 'warn', 'error']);
  });
});
