import * as fs from 'node:fs';

/**
 * Reads raw environment strings into typed values and collects every problem,
 * so a misconfigured deployment learns about all bad variables in one start.
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** One day in milliseconds, for the bounds of duration variables. */
export const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The variables that hold secrets. Each may instead be given as a file: `<NAME>_FILE` names it
 * (Docker and Kubernetes secrets), so the value is not in the environment, which `docker inspect`,
 * /proc/<pid>/environ and crash reports show. One rule for all, here, so no feature reads files.
 */
export const SECRET_VARIABLES: ReadonlySet<string> = new Set([
  'DATABASE_URL',
  'DATABASE_PASSWORD',
  'JWT_SECRET',
  'JWT_SECRET_PREVIOUS',
  'ADMIN_KEY',
  'WEB_SECRET',
  'METRICS_TOKEN',
  'DART_API_KEY',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'FIREBASE_SERVICE_ACCOUNT',
  'GOOGLE_PLAY_SERVICE_ACCOUNT',
  'APPLE_PRIVATE_KEY',
  'GOOGLE_PUBSUB_SHARED_SECRET',
]);

/** Reads a secret's file; throws (with a `code`) when it cannot. */
export type SecretFileReader = (file: string) => string;

/** A secret is a few kilobytes at most (a service-account JSON): a bigger file is a wrong path. */
const MAX_SECRET_FILE_BYTES = 1024 * 1024;

export class EnvReader {
  private readonly problems: string[] = [];
  private readonly names = new Set<string>();
  /** Secrets resolved so far: each file is read once, however often its variable is asked for. */
  private readonly secrets = new Map<string, string | undefined>();
  /** Secrets whose file was refused: their own rules would only repeat that problem. */
  private readonly refused = new Set<string>();

  constructor(
    private readonly env: Record<string, string | undefined>,
    private readonly readSecretFile: SecretFileReader = readRegularFile,
  ) {}

  /** Every variable asked for so far, set or not (a test checks each one is documented). */
  get variablesRead(): ReadonlySet<string> {
    return this.names;
  }

  /**
   * The trimmed value, or undefined when the variable is unset or blank. A secret
   * (`SECRET_VARIABLES`) may come from the file its `<NAME>_FILE` names instead.
   */
  raw(name: string): string | undefined {
    this.names.add(name);
    return SECRET_VARIABLES.has(name) ? this.secret(name) : this.plain(name);
  }

  private plain(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  private secret(name: string): string | undefined {
    const fileVariable = `${name}_FILE`;
    this.names.add(fileVariable);
    if (!this.secrets.has(name)) this.secrets.set(name, this.resolveSecret(name, fileVariable));
    return this.secrets.get(name);
  }

  /** The variable's value, or the content of the file `<NAME>_FILE` names, its trailing line breaks removed. */
  private resolveSecret(name: string, fileVariable: string): string | undefined {
    const direct = this.plain(name);
    const file = this.plain(fileVariable);
    if (file === undefined) return direct;
    if (direct !== undefined) {
      this.refuse(name, `${name} and ${fileVariable} are both set: set only one of them`);
      return undefined;
    }
    let content: string;
    try {
      content = this.readSecretFile(file);
    } catch (error) {
      // The path and the reason, never anything read.
      this.refuse(name, `${fileVariable} names a file that cannot be read: ${file} (${fileProblem(error)})`);
      return undefined;
    }
    let end = content.length;
    while (end > 0 && (content[end - 1] === '\n' || content[end - 1] === '\r')) end--;
    const value = content.slice(0, end);
    if (value === '') {
      this.refuse(name, `${fileVariable} names an empty file: ${file}`);
      return undefined;
    }
    return value;
  }

  private refuse(name: string, problem: string): void {
    this.refused.add(name);
    this.problems.push(problem);
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  optionalString(name: string): string | undefined {
    return this.raw(name);
  }

  /** A comma-separated list, items trimmed, empty items dropped. */
  list(name: string, fallback: string): string[] {
    return splitList(this.string(name, fallback));
  }

  integer(name: string, fallback: number, range: { min: number; max: number }): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(parsed) || parsed < range.min || parsed > range.max) {
      this.fail(name, `an integer from ${range.min} to ${range.max}`, value);
      return fallback;
    }
    return parsed;
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['true', '1', 'yes', 'on'].includes(value)) return true;
    if (['false', '0', 'no', 'off'].includes(value)) return false;
    this.fail(name, 'true or false', value);
    return fallback;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.fail(name, `one of ${allowed.join(', ')}`, value);
      return fallback;
    }
    return value as T;
  }

  url(name: string, fallback: string): string;
  url(name: string, fallback?: undefined): string | undefined;
  url(name: string, fallback?: string): string | undefined {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    try {
      const parsed = new URL(value);
      if (!['http:', 'https:', 'postgres:', 'postgresql:'].includes(parsed.protocol)) throw new Error('scheme');
      return value;
    } catch {
      // A URL may hold a password: never echo its credentials.
      this.fail(name, 'an absolute http(s) or postgres URL', value.replace(/\/\/[^/@]*@/, '//***@'));
      return fallback;
    }
  }

  /** Records a problem found by a rule that spans several variables. */
  fail(name: string, accepts: string, got?: string): void {
    if (this.refused.has(name)) return;
    const shown = got === undefined ? '' : ` (got "${got.length > 60 ? `${got.slice(0, 57)}...` : got}")`;
    this.problems.push(`${name} must be ${accepts}${shown}`);
  }

  /** Throws one error naming every bad variable, if there were any. */
  assertValid(): void {
    if (this.problems.length > 0) throw new ConfigError(this.problems);
  }
}

export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** A regular file's text (a Kubernetes secret's symlink is followed); never a device, a directory or a huge file. */
function readRegularFile(file: string): string {
  const stat = fs.statSync(file);
  if (!stat.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTFILE' });
  if (stat.size > MAX_SECRET_FILE_BYTES) throw Object.assign(new Error('too large'), { code: 'ETOOBIG' });
  return fs.readFileSync(file, 'utf8');
}

function fileProblem(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied: the service runs as a user that may not read it';
    case 'ENOTFILE':
    case 'EISDIR':
      return 'not a regular file';
    case 'ETOOBIG':
      return `larger than ${MAX_SECRET_FILE_BYTES / 1024} KiB`;
    default:
      return typeof code === 'string' ? code : 'unreadable';
  }
}
