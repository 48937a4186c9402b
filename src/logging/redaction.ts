/**
 * The one redaction every log line passes through (see `createRootLogger`): URLs,
 * headers, error messages and stacks alike. It removes
 * - the values of the configured secrets (registered with `addSecrets`), wherever they appear;
 * - credentials recognisable by their shape or their name, which are not configured
 *   but belong to callers: bearer and basic credentials, JWTs, FCM registration
 *   tokens, private keys, query parameters and JSON fields named like credentials.
 */
export const REDACTED = '[redacted]';

/** Query parameter and JSON field names that carry credentials (`token`, `fcm_token`, `crtfc_key`, `X-Admin-Key`…). */
const CREDENTIAL_NAME = String.raw`[\w.-]*(?:token|secret|signature|key|password|passwd|authorization|cookie|credential|session)[\w.-]*`;

const PATTERNS: [RegExp, string][] = [
  // ?token=…&fcm_token=… in URLs (also inside messages and stacks)
  [new RegExp(String.raw`([?&;]${CREDENTIAL_NAME}=)[^&#\s"'\\]*`, 'gi'), `$1${REDACTED}`],
  // "authorization":"…", "fcm_token":"…" in JSON (headers, bodies, error properties)
  [new RegExp(String.raw`("${CREDENTIAL_NAME}"\s*:\s*")(?:[^"\\]|\\.)*"`, 'gi'), `$1${REDACTED}"`],
  // Authorization: Bearer …, Basic …
  [/\b(Bearer|Basic)\s+[A-Za-z0-9\-._~+/]+=*/gi, `$1 ${REDACTED}`],
  // JWTs (service tokens, identity tokens, App Check tokens): header.payload.signature
  [/\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, REDACTED],
  // FCM registration tokens: <instance id>:APA91<…>
  [/[A-Za-z0-9_-]{8,}:APA91[A-Za-z0-9_-]{20,}/g, REDACTED],
  // PEM private keys (service accounts, store API keys), also with escaped newlines
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, REDACTED],
];

/** Shorter configured values are not secrets worth the name; replacing them would garble logs. */
const MIN_SECRET_LENGTH = 8;

/** Config fields (at any depth) whose string values are secrets: jwt.secret, adminKey, dart.apiKey, metricsToken… */
const SECRET_CONFIG_FIELD = /(secret|apikey|adminkey|privatekey|token|password|serviceaccount)$/i;

export class Redactor {
  /** Longest first, so a secret containing another is replaced whole. */
  private secrets: string[] = [];

  /** Registers values that must never be written, as they are and as JSON escapes them. */
  addSecrets(values: Iterable<string | undefined>): void {
    const all = new Set(this.secrets);
    for (const value of values) {
      if (value === undefined || value.length < MIN_SECRET_LENGTH) continue;
      all.add(value);
      all.add(JSON.stringify(value).slice(1, -1));
      all.add(encodeURIComponent(value));
    }
    this.secrets = [...all].sort((a, b) => b.length - a.length);
  }

  redact(text: string): string {
    let result = text;
    for (const secret of this.secrets) result = result.split(secret).join(REDACTED);
    for (const [pattern, replacement] of PATTERNS) result = result.replace(pattern, replacement);
    return result;
  }
}

/**
 * Every secret of the configuration: string values of fields named like secrets
 * (inline service-account JSON included, with its private key), and the password
 * of the database URL.
 */
export function secretsOf(config: object): string[] {
  const found: string[] = [];
  const visit = (value: unknown, field: string): void => {
    if (typeof value === 'string') {
      if (SECRET_CONFIG_FIELD.test(field)) found.push(value, ...privateKeysIn(value));
    } else if (value !== null && typeof value === 'object') {
      for (const [name, inner] of Object.entries(value)) visit(inner, name);
    }
  };
  visit(config, '');
  if ('databaseUrl' in config && typeof config.databaseUrl === 'string') {
    const password = safeUrl(config.databaseUrl)?.password;
    if (password) found.push(password, decodeURIComponent(password));
  }
  return found;
}

/** The `private_key` of inline service-account JSON. */
function privateKeysIn(value: string): string[] {
  if (!value.trimStart().startsWith('{')) return [];
  try {
    const key = (JSON.parse(value) as { private_key?: unknown }).private_key;
    return typeof key === 'string' ? [key] : [];
  } catch {
    return [];
  }
}

function safeUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}
