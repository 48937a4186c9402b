import { hostname } from 'node:os';
import { Writable } from 'node:stream';
import { createRootLogger, protectSecrets } from './root-logger';

function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

describe('createRootLogger', () => {
  it('redacts every line on its way out: messages, fields, errors and child loggers', () => {
    const out = capture();
    const logger = createRootLogger({ appEnv: 'dev', logLevel: 'debug', adminKey: 'admin-key-from-the-start' }, out.stream);
    protectSecrets(logger, { jwt: { secret: 'a-jwt-secret-generated-after-the-logger-started' } });

    logger.info('admin-key-from-the-start leaked');
    logger.child({ context: 'Errors' }).error({ url: '/internal/x?token=pubsub' }, 'failed');
    logger.warn({ err: new Error('key a-jwt-secret-generated-after-the-logger-started rejected') }, 'boom');
    logger.debug({ headers: { authorization: 'Bearer abc.def' } }, 'request');

    const text = out.text();
    expect(text.split('\n').filter(Boolean)).toHaveLength(4);
    for (const secret of ['admin-key-from-the-start', 'a-jwt-secret-generated-after-the-logger-started', 'pubsub', 'abc.def']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('[redacted]');
  });

  it('writes the level as a word, and the service, its version and the process on every line', () => {
    const out = capture();
    const logger = createRootLogger({ appEnv: 'production', logLevel: 'info' }, out.stream);
    logger.warn('one');
    logger.child({ context: 'X' }).error('two');
    const lines = out
      .text()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const { version } = jest.requireActual<{ version: string }>('../../package.json');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        service: 'disclosure-briefing',
        version,
        instance: expect.stringMatching(/^.+:\d+$/),
        msg: 'one',
      }),
      expect.objectContaining({ level: 'error', service: 'disclosure-briefing', version, context: 'X', msg: 'two' }),
    ]);
    expect(lines[0].instance).toBe(`${hostname().slice(0, 40)}:${process.pid}`);
  });
});
