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

export class EnvReader {
  private readonly problems: string[] = [];
  private readonly names = new Set<string>();

  constructor(private readonly env: Record<string, string | undefined>) {}

  /** Every variable asked for so far, set or not (a test checks each one is documented). */
  get variablesRead(): ReadonlySet<string> {
    return this.names;
  }

  /** The trimmed value, or undefined when the variable is unset or blank. */
  raw(name: string): string | undefined {
    this.names.add(name);
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
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
