/**
 * The one redaction every log line passes through (see `createRootLogger`): URLs,
 * headers, error messages and stacks alike. It removes
 * - the values of the configured secrets (registered with `addSecrets`), wherever they appear;
 * - credentials recognisable by their shape or their name, which are not configured
 *   but belong to callers: bearer and basic credentials, JWTs, FCM registration
 *   tokens, private keys, query parameters and JSON fields named like credentials.
 *
 * Every line a client can put text into passes here, so each pass costs time linear in the
 * line's length, whatever the text: a pass reads each character a bounded number of times.
 * A regular expression searched over a whole line retries at every position, so one that
 * scans a run from each position of that run costs the square of the run's length (the
 * earlier patterns did: `[A-Za-z0-9_-]{8,}:APA91…` from every letter of a long URL). Here a
 * regular expression only finds where a credential may start, at characters that never
 * lie inside the runs it scans (so the runs scanned from different starts never overlap),
 * and what it cannot decide in one forward scan is decided in code that moves forward.
 */
export const REDACTED = '[redacted]';

/** Words that make a query parameter or JSON field name a credential's (`token`, `fcm_token`, `crtfc_key`, `X-Admin-Key`…); tried on a name alone. */
const CREDENTIAL_WORD = /token|secret|signature|key|password|passwd|authorization|cookie|credential|session/i;

/**
 * `?name=`, `&name=`, `;name=`: a match starts only at `?`, `&` or `;`, none of which is a
 * name character, and the name run ends at `=`, which is not one either.
 */
const QUERY_PARAMETER = /[?&;]([\w.-]*)=/g;
/** A query parameter's value: everything up to the next separator. */
const QUERY_VALUE = /[^&#\s"'\\]*/y;

/** `"name":"`: starts only at `"`, which is neither a name character nor white space. */
const JSON_FIELD = /"([\w.-]*)"\s*:\s*"/g;

/**
 * `Authorization: Bearer …`, `Basic …`. Linear as it is: a match starts only at the word,
 * the white space after it is the only run it may give back, and the credential runs to
 * the end of its characters with nothing after it that could fail.
 */
const AUTH_SCHEME = /\b(Bearer|Basic)\s+[A-Za-z0-9\-._~+/]+=*/gi;

/** The characters of JWT segments and FCM registration tokens (base64url). */
const BASE64URL = /[A-Za-z0-9_-]*/y;
/** Private key labels: `PRIVATE KEY`, `RSA PRIVATE KEY`, `EC PRIVATE KEY`… */
const PEM_LABEL = /[A-Z ]*/y;
const PEM_BEGIN = '-----BEGIN ';
const PEM_END = '-----END ';
const PRIVATE_KEY = 'PRIVATE KEY';
const PEM_DASHES = '-----';
const FCM_SEPARATOR = ':APA91';

/** `\w`: letters, digits and `_`. */
function isWordChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/** What `.` does not match. */
function isLineTerminator(code: number): boolean {
  return code === 0x0a || code === 0x0d || code === 0x2028 || code === 0x2029;
}

/** Where the run of `chars` (a sticky `[…]*`, which cannot fail) that starts at `from` ends. */
function runEnd(chars: RegExp, text: string, from: number): number {
  chars.lastIndex = from;
  chars.test(text);
  return chars.lastIndex;
}

/** A text being rewritten front to back: the parts replaced so far, and where the copy stands. */
class Rewrite {
  private out = '';
  private copied = 0;
  private changed = false;

  constructor(private readonly text: string) {}

  /** Where the last replacement ended: no later match may begin before it. */
  get position(): number {
    return this.copied;
  }

  replace(start: number, end: number, replacement: string): void {
    this.out += this.text.slice(this.copied, start) + replacement;
    this.copied = end;
    this.changed = true;
  }

  result(): string {
    return this.changed ? this.out + this.text.slice(this.copied) : this.text;
  }
}

/** `?token=…`, `&fcm_token=…` in URLs (also inside messages and stacks): the value goes. */
function redactQueryParameters(text: string): string {
  const rewrite = new Rewrite(text);
  QUERY_PARAMETER.lastIndex = 0;
  for (let match = QUERY_PARAMETER.exec(text); match !== null; match = QUERY_PARAMETER.exec(text)) {
    if (!CREDENTIAL_WORD.test(match[1])) continue;
    const valueStart = QUERY_PARAMETER.lastIndex;
    const valueEnd = runEnd(QUERY_VALUE, text, valueStart);
    rewrite.replace(valueStart, valueEnd, REDACTED);
    QUERY_PARAMETER.lastIndex = valueEnd;
  }
  return rewrite.result();
}

/**
 * Where the JSON string whose content starts at `from` ends (the index of its closing
 * quote), or, as `~index`, where it stops being one: the end of the text, or a backslash
 * before a line break or nothing.
 */
function closingQuote(text: string, from: number): number {
  let at = from;
  while (at < text.length) {
    const code = text.charCodeAt(at);
    if (code === 0x22) return at;
    if (code !== 0x5c) at++;
    else if (at + 1 < text.length && !isLineTerminator(text.charCodeAt(at + 1))) at += 2;
    else return ~at;
  }
  return ~at;
}

/** `"authorization":"…"`, `"fcm_token":"…"` in JSON (headers, bodies, error properties): the string goes. */
function redactJsonFields(text: string): string {
  const rewrite = new Rewrite(text);
  JSON_FIELD.lastIndex = 0;
  for (let match = JSON_FIELD.exec(text); match !== null; match = JSON_FIELD.exec(text)) {
    const valueStart = JSON_FIELD.lastIndex;
    if (!CREDENTIAL_WORD.test(match[1])) {
      // The value's opening quote may open the next field's name (`"a":"token":"…"`).
      JSON_FIELD.lastIndex = valueStart - 1;
      continue;
    }
    const end = closingQuote(text, valueStart);
    if (end >= 0) {
      rewrite.replace(valueStart, end, REDACTED);
      JSON_FIELD.lastIndex = end + 1;
    } else {
      // A string that never closes: no field starts inside it, because the quote after
      // that field's name would have closed it. Searching on from where it stopped keeps
      // every character read once.
      JSON_FIELD.lastIndex = ~end;
    }
  }
  return rewrite.result();
}

/** `Bearer …` and `Basic …` credentials. */
function redactAuthSchemes(text: string): string {
  return text.replace(AUTH_SCHEME, `$1 ${REDACTED}`);
}

/**
 * JWTs (service tokens, identity tokens, App Check tokens): `eyJ…` header, payload and
 * signature in base64url, a word boundary before. Every `eyJ` of one base64url run shares
 * the same end of the first segment and the same rest, so only the first of a run is tried:
 * when it fails, the search goes on after the run.
 */
function redactJwts(text: string): string {
  const rewrite = new Rewrite(text);
  for (let start = text.indexOf('eyJ'); start !== -1;) {
    if (start > 0 && isWordChar(text.charCodeAt(start - 1))) {
      start = text.indexOf('eyJ', start + 1);
      continue;
    }
    const headerEnd = runEnd(BASE64URL, text, start + 3);
    if (headerEnd - start >= 7 && text.charCodeAt(headerEnd) === 0x2e) {
      const payloadEnd = runEnd(BASE64URL, text, headerEnd + 1);
      if (payloadEnd - headerEnd > 4 && text.charCodeAt(payloadEnd) === 0x2e) {
        const end = runEnd(BASE64URL, text, payloadEnd + 1);
        rewrite.replace(start, end, REDACTED);
        start = text.indexOf('eyJ', end);
        continue;
      }
    }
    start = text.indexOf('eyJ', headerEnd);
  }
  return rewrite.result();
}

/**
 * FCM registration tokens: `<instance id>:APA91<…>`, at least 8 base64url characters
 * before the colon and 20 after `APA91`. Found by the separator; the instance id is the
 * run before it, which ends at the previous separator or replacement at the latest.
 */
function redactFcmTokens(text: string): string {
  const rewrite = new Rewrite(text);
  for (let colon = text.indexOf(FCM_SEPARATOR); colon !== -1;) {
    let start = colon;
    while (start > rewrite.position && isBase64Url(text.charCodeAt(start - 1))) start--;
    const end = runEnd(BASE64URL, text, colon + 1);
    if (colon - start >= 8 && end - (colon + 1) >= 25) {
      rewrite.replace(start, end, REDACTED);
      colon = text.indexOf(FCM_SEPARATOR, end);
    } else {
      colon = text.indexOf(FCM_SEPARATOR, colon + 1);
    }
  }
  return rewrite.result();
}

function isBase64Url(code: number): boolean {
  return isWordChar(code) || code === 0x2d;
}

/**
 * Where a `-----BEGIN ` or `-----END ` line at `at` (of `marker`'s length) ends when it
 * is a private key's (`-----BEGIN RSA PRIVATE KEY-----`), else -1. The label is the run
 * of capitals and spaces after the marker.
 */
function privateKeyLineEnd(text: string, at: number, marker: string): number {
  const labelEnd = runEnd(PEM_LABEL, text, at + marker.length);
  const keyAt = labelEnd - PRIVATE_KEY.length;
  if (keyAt < at + marker.length || !text.startsWith(PRIVATE_KEY, keyAt) || !text.startsWith(PEM_DASHES, labelEnd)) return -1;
  return labelEnd + PEM_DASHES.length;
}

/**
 * PEM private keys (service accounts, store API keys), also with escaped newlines: from a
 * BEGIN line to the first END line after it. When no END line follows, none follows any
 * later BEGIN either, so the search stops there rather than read the rest again.
 */
function redactPrivateKeys(text: string): string {
  const rewrite = new Rewrite(text);
  let endSearch = 0;
  for (let begin = text.indexOf(PEM_BEGIN); begin !== -1;) {
    const bodyStart = privateKeyLineEnd(text, begin, PEM_BEGIN);
    if (bodyStart === -1) {
      begin = text.indexOf(PEM_BEGIN, begin + 1);
      continue;
    }
    // END lines before this body were judged already, by an earlier BEGIN's search.
    let end = -1;
    let at = text.indexOf(PEM_END, Math.max(bodyStart, endSearch));
    while (at !== -1) {
      endSearch = at + 1;
      end = privateKeyLineEnd(text, at, PEM_END);
      if (end !== -1) break;
      at = text.indexOf(PEM_END, at + 1);
    }
    if (end === -1) break;
    rewrite.replace(begin, end, REDACTED);
    begin = text.indexOf(PEM_BEGIN, end);
  }
  return rewrite.result();
}

/** In this order, each on the previous one's result (as the patterns always were applied). */
const PASSES: ((text: string) => string)[] = [
  redactQueryParameters,
  redactJsonFields,
  redactAuthSchemes,
  redactJwts,
  redactFcmTokens,
  redactPrivateKeys,
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

  /** Linear in the text's length for each configured secret (a plain substring search) and for each pass. */
  redact(text: string): string {
    let result = text;
    for (const secret of this.secrets) result = result.split(secret).join(REDACTED);
    for (const pass of PASSES) result = pass(result);
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
