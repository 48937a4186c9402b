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
});
