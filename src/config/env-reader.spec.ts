import * as path from 'node:path';
import { ConfigError, EnvReader } from './env-reader';
import { temporaryFiles } from '../../test/support/temporary-files';

const SECRET = 's'.repeat(40);

/** The message `assertValid` throws for what was read; fails the test if nothing was wrong. */
function problemsOf(read: EnvReader): string {
  try {
    read.assertValid();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('assertValid did not throw');
}

describe('EnvReader: secrets read from files (<NAME>_FILE)', () => {
  const { dir, file } = temporaryFiles('briefing-secret-files-');

  it("takes the file's content as the value, without its trailing line breaks", () => {
    const read = new EnvReader({
      JWT_SECRET_FILE: file('jwt_secret', `${SECRET}\n`),
      ADMIN_KEY_FILE: file('admin_key', 'a key with spaces inside \r\n'),
    });
    expect(read.optionalString('JWT_SECRET')).toBe(SECRET);
    expect(read.optionalString('ADMIN_KEY')).toBe('a key with spaces inside ');
    read.assertValid();
  });

  it('keeps a multi-line secret (a PEM key) whole but for the last line break', () => {
    const pem = '-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49\n-----END PRIVATE KEY-----';
    expect(new EnvReader({ APPLE_PRIVATE_KEY_FILE: file('key.p8', `${pem}\n`) }).optionalString('APPLE_PRIVATE_KEY')).toBe(pem);
  });

  it('refuses both the variable and its file, naming both and neither value', () => {
    const read = new EnvReader({ JWT_SECRET: SECRET, JWT_SECRET_FILE: file('jwt_secret', 'f'.repeat(40)) });
    expect(read.optionalString('JWT_SECRET')).toBeUndefined();
    const message = problemsOf(read);
    expect(message).toContain('JWT_SECRET and JWT_SECRET_FILE are both set: set only one of them');
    expect(message).not.toContain(SECRET);
    expect(message).not.toContain('f'.repeat(40));
  });

  it('names the variable, the path and the reason of a file it cannot read', () => {
    const missing = path.join(dir(), 'no-such-file');
    const read = new EnvReader({ JWT_SECRET_FILE: missing, ADMIN_KEY_FILE: dir() });
    expect(read.optionalString('JWT_SECRET')).toBeUndefined();
    expect(read.optionalString('ADMIN_KEY')).toBeUndefined();
    const message = problemsOf(read);
    expect(message).toContain(`JWT_SECRET_FILE names a file that cannot be read: ${missing} (no such file)`);
    expect(message).toContain(`ADMIN_KEY_FILE names a file that cannot be read: ${dir()} (not a regular file)`);
  });

  it('says so when the service may not read the file, never what an error carried', () => {
    const read = new EnvReader({ WEB_SECRET_FILE: '/run/secrets/web_secret' }, () => {
      throw Object.assign(new Error(`EACCES: permission denied, open '/run/secrets/web_secret' ${SECRET}`), { code: 'EACCES' });
    });
    read.optionalString('WEB_SECRET');
    const message = problemsOf(read);
    expect(message).toContain('WEB_SECRET_FILE names a file that cannot be read: /run/secrets/web_secret (permission denied');
    expect(message).not.toContain(SECRET);
  });

  it('refuses an empty file (a secret written with nothing in it)', () => {
    const empty = file('empty', '\n');
    const read = new EnvReader({ DART_API_KEY_FILE: empty });
    expect(read.optionalString('DART_API_KEY')).toBeUndefined();
    expect(problemsOf(read)).toContain(`DART_API_KEY_FILE names an empty file: ${empty}`);
  });

  it("adds no problem of the variable's own rules once its file was refused", () => {
    const read = new EnvReader({ JWT_SECRET_FILE: path.join(dir(), 'missing') });
    if (read.optionalString('JWT_SECRET') === undefined) read.fail('JWT_SECRET', 'set in production');
    expect(problemsOf(read)).not.toContain('JWT_SECRET must');
  });

  it('reads each file once, however often its variable is asked for', () => {
    const reads: string[] = [];
    const read = new EnvReader({ DATABASE_URL_FILE: '/run/secrets/database_url' }, (at) => {
      reads.push(at);
      return 'postgres://briefing:pw@db:5432/briefing\n';
    });
    expect(read.raw('DATABASE_URL')).toBe('postgres://briefing:pw@db:5432/briefing');
    expect(read.url('DATABASE_URL')).toBe('postgres://briefing:pw@db:5432/briefing');
    expect(reads).toEqual(['/run/secrets/database_url']);
  });

  it('applies to the secrets only: any other variable ignores a <NAME>_FILE, and reads none', () => {
    const read = new EnvReader({ PORT_FILE: file('port', '4000') }, () => {
      throw new Error('no file is read for PORT');
    });
    expect(read.integer('PORT', 3000, { min: 0, max: 65535 })).toBe(3000);
    expect(read.variablesRead).toEqual(new Set(['PORT']));
  });

  it('counts the file variable of every secret it was asked for as read (docs/configuration.md lists both)', () => {
    const read = new EnvReader({});
    read.optionalString('METRICS_TOKEN');
    expect(read.variablesRead).toEqual(new Set(['METRICS_TOKEN', 'METRICS_TOKEN_FILE']));
  });
});
