import { Writable } from 'node:stream';
import { ConsoleLogger, Logger } from '@nestjs/common';
import { Logger as PinoBackedLogger, PinoLogger } from 'nestjs-pino';
import { QuietFrameworkLogger } from './quiet-framework-logger';
import { createRootLogger } from './root-logger';

interface Line {
  level: string;
  msg?: string;
  context?: string;
  err?: { type: string; message: string; stack: string; code?: string };
}

/**
 * The path of every service line: Nest's `Logger` → QuietFrameworkLogger → nestjs-pino →
 * the root pino logger. An error given as `{ err }` reaches the line whole (pino's error
 * serializer: type, message, stack), and the message stays in `msg`.
 */
describe('an error logged through Nest’s Logger', () => {
  const lines: Line[] = [];

  beforeAll(() => {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Line);
        done();
      },
    });
    const root = createRootLogger({ appEnv: 'dev', logLevel: 'trace' }, destination);
    // What app.useLogger(new QuietFrameworkLogger(app.get(Logger))) installs.
    Logger.overrideLogger(new QuietFrameworkLogger(new PinoBackedLogger(new PinoLogger({ pinoHttp: { logger: root } }), {})));
  });
  afterAll(() => Logger.overrideLogger(new ConsoleLogger()));
  beforeEach(() => (lines.length = 0));

  class UpstreamError extends Error {
    readonly code = 'E_UPSTREAM';
  }

  it.each([
    ['fatal', 'fatal'],
    ['error', 'error'],
    ['warn', 'warn'],
    ['log', 'info'],
    ['debug', 'debug'],
    ['verbose', 'trace'],
  ] as const)('%s keeps the error’s type, message and stack, and the message in msg', (method, level) => {
    const error = new UpstreamError('connection reset by peer');
    new Logger('RateLimitSweep')[method]({ err: error }, 'rate-limit sweep failed');
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({ level, msg: 'rate-limit sweep failed', context: 'RateLimitSweep' });
    expect(line.err).toMatchObject({ type: 'UpstreamError', message: 'connection reset by peer', code: 'E_UPSTREAM' });
    expect(line.err?.stack).toContain('connection reset by peer\n    at ');
    expect(line.err?.stack).toContain('framework-logger-errors.spec.ts');
  });

  it('keeps the cause of an error', () => {
    const error = new Error('refresh failed', { cause: new Error('socket hang up') });
    new Logger('Refresh').error({ err: error }, 'token refresh failed');
    // pino's serializer appends the causes' messages and stacks.
    expect(lines[0]).toMatchObject({ level: 'error', msg: 'token refresh failed', err: { message: 'refresh failed: socket hang up' } });
    expect(lines[0].err?.stack).toContain('caused by: Error: socket hang up');
  });

  it('logs more fields beside the error', () => {
    new Logger('CompanyRefresh').warn({ err: new Error('boom'), company: '00126380' }, 'company refresh failed');
    expect(lines[0]).toMatchObject({
      level: 'warn',
      msg: 'company refresh failed',
      context: 'CompanyRefresh',
      company: '00126380',
      err: { type: 'Error', message: 'boom' },
    });
  });

  it('keeps a thrown value that is not an Error as it is', () => {
    new Logger('X').error({ err: 'a string was thrown' }, 'failed');
    expect(lines[0]).toMatchObject({ level: 'error', msg: 'failed', err: 'a string was thrown' });
  });
});
