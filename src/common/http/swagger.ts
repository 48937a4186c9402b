import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { version } from '../../../package.json';
import { ERROR_STATUS, type ErrorCode } from '../errors/error-codes';
import {
  type ErrorDocs,
  errorBodySchema,
  type ErrorResponseDoc,
  errorResponseDocs,
  RETRY_AFTER_CODES,
  WITHOUT_DATABASE,
} from './api-errors';
import { MAX_URL_LENGTH } from './url-length';

const DESCRIPTION = `The **Disclosure Briefing Service**: filings of listed Korean companies from the national
disclosure system (OpenDART), each with a one-line AI summary and a full analysis; signed-in users reveal
full analyses within a weekly quota refilled by rewarded ads, watch companies for push notifications of
new filings, and subscribe (\`pro\`, \`max\`) through the app stores. Operators use the \`admin\` routes
with \`X-Admin-Key\`.

Sign in with a provider's token at \`POST /api/v1/auth/idp{1,2,3}/token\` and send the answer's \`token\`
as \`Authorization: Bearer …\`. Locally, \`npm start\` signs \`sandbox-<name>\` in at idp1. Each operation
says what it needs: \`jwt\`, \`admin-key\`, nothing (\`security: []\`), or either (an optional token).

Every answer carries \`X-Request-Id\` (the log lines of the request have it). Every GET answer with a body
carries an \`ETag\`: send it back as \`If-None-Match\` and an unchanged answer is 304 without a body.

Every error has one body, \`{ statusCode, error, message, code }\`, sometimes with a few more fields
(\`WATCHLIST_FULL\` adds \`capacity\` and \`used\`, \`QUOTA_EXHAUSTED\` adds \`can_watch_ad\`). Each
\`code\` always comes with the same HTTP status:

`;

/** The table of every error code and its HTTP status, from the one map of them. */
function errorCodeTable(): string {
  const rows = (Object.entries(ERROR_STATUS) as Array<[ErrorCode, number]>).map(([code, status]) => `| \`${code}\` | ${status} |`);
  return ['| code | HTTP status |', '|---|---|', ...rows].join('\n');
}

/** What any operation can answer, whatever it does. */
const EVERY_OPERATION: ErrorDocs = {
  URI_TOO_LONG: `the path and query are longer than ${MAX_URL_LENGTH} characters`,
  DATABASE_UNAVAILABLE: 'the database is unreachable or did not answer in time (with Retry-After)',
  INTERNAL_ERROR: 'an unexpected fault; the log has the detail, the body never does',
};
/** The rate limits count every request but reads (GET, HEAD, OPTIONS are never limited). */
const EVERY_WRITE: ErrorDocs = {
  RATE_LIMITED: "the caller's rate limit is spent (with Retry-After)",
};
const EVERY_BODY: ErrorDocs = {
  BAD_REQUEST: 'the body is nested too deeply, or does not match its Content-Length or Content-Encoding',
  MALFORMED_JSON: 'the body is not valid JSON',
  PAYLOAD_TOO_LARGE: 'the body is larger than 256 kB',
  UNSUPPORTED_MEDIA_TYPE:
    'a non-empty body is not sent as JSON (Content-Type application/json), or its Content-Encoding or charset is not supported',
};

/**
 * The tags, in the order Swagger UI lists them, with what each groups. The push payload has no
 * route of its own: it is described here and in the `PushNotification` schema.
 */
const TAGS: ReadonlyArray<{ name: string; description: string }> = [
  {
    name: 'auth',
    description: "Sign in with an identity provider's token for a service JWT (`Authorization: Bearer …`); the account, its deletion",
  },
  {
    name: 'disclosures',
    description: 'Filings of listed and unlisted companies from the disclosure system, with their one-line summaries; public and cached',
  },
  { name: 'companies', description: 'Basic data of a company (company.json of the disclosure system); public and cached' },
  {
    name: 'stocks',
    description: 'The stock master: listed companies by name or stock code, and those with a summarised filing today; public and cached',
  },
  {
    name: 'analysis',
    description: 'The AI analysis of a filing: the one-liner for everyone, the full analysis revealed within the weekly quota',
  },
  { name: 'quota', description: 'The weekly reveal quota (10 / 60 / 200 by tier), refilled by rewarded ads' },
  { name: 'ads', description: "The ad network's server-side verification of a rewarded ad (called by the ad network, not by apps)" },
  {
    name: 'watchlist',
    description: 'Companies the user follows (3 / 30 / 100 by tier), which of their filings are pushed, and one feed of their filings',
  },
  {
    name: 'push',
    description: `Device tokens, quiet hours and the history of the new-filing notifications.

**What a device receives.** When a watched company files (and the watch entry's \`notify_enabled\`,
\`categories\` and \`min_impact\` let the filing through), every FCM token the user registered at
\`POST /api/v1/push/fcm-token\` gets one notification through Firebase Cloud Messaging: the schema
\`PushNotification\` (the FCM HTTP v1 message; Schemas, at the end of Swagger UI).

- \`notification.title\` is the company name, \`notification.body\` the filing's one-line summary, or
  \`새 공시: {report name}\` when no summary was ready in time (90 s by default);
- \`data\` is \`PushData\`, \`{ rcept_no, corp_code }\` as strings: open the
  filing \`rcept_no\` when the notification is tapped;
- the collapse identity is the filing: Android \`notification.tag\` and APNs \`apns-collapse-id\` are its
  \`rcept_no\`, so a copy sent again (after a lost answer) replaces the one shown; no FCM \`collapse_key\`;
- during the user's quiet hours (\`PUT /api/v1/push/preferences\`) nothing is sent; at their end one
  **digest** per device: title \`관심 기업 새 공시 {n}건\`, body the companies newest first, three named
  (\`가나전자, 다라화학, 마바전자 외 2곳\`), \`data\` and collapse identity of the newest held filing.
  A single held filing goes as its usual notification.

\`GET /api/v1/push/history\` lists what was sent to the caller, one entry per filing or digest.`,
  },
  { name: 'subscription', description: 'Store purchases (`pro`, `max`) verified with the App Store or Google Play' },
  { name: 'store callbacks', description: "The stores' server notifications (called by Apple and Google, not by apps)" },
  { name: 'health', description: 'Liveness and readiness probes' },
  { name: 'admin', description: 'Operators, with `X-Admin-Key`: jobs, backfills, the stock sync, the scheduler, recorded pushes, tiers' },
];

/**
 * The response headers the document declares: `X-Request-Id` on every answer, `Retry-After`
 * on the answers of RETRY_AFTER_CODES, `ETag` on GET answers with a body (Express's weak tag of
 * it, also on the HTTP cache's hits), which is what a 304 answers `If-None-Match` with.
 */
const HEADERS = {
  'X-Request-Id': {
    description:
      'The request id on every log line of the request: the one the client sent when well formed (1 to 128 of `A-Za-z0-9._:-`), else a new UUID',
    schema: { type: 'string', example: '3f2b6c1e-8d4a-4f0e-9a57-0c6b2d1e7f90' },
  },
  'Retry-After': {
    description: `Seconds to wait before sending the request again; with the codes ${[...RETRY_AFTER_CODES].join(', ')}`,
    schema: { type: 'integer', minimum: 1, example: 5 },
  },
  ETag: {
    description: 'A weak tag of the body: sent back as If-None-Match, an unchanged answer is 304 Not Modified',
    schema: { type: 'string', example: 'W/"1c4-Vb1R0qzDq4qj3d9Xq1y0m1wX0kE"' },
  },
};
const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header' as const,
  required: false,
  description: 'The ETag of an answer already held: 304 without a body while the answer is the same',
  schema: { type: 'string', example: 'W/"1c4-Vb1R0qzDq4qj3d9Xq1y0m1wX0kE"' },
};
const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });
const IF_NONE_MATCH_REF = { $ref: '#/components/parameters/If-None-Match' };

type AnswerDoc = {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: unknown; examples?: Record<string, unknown> }>;
};
type Operation = {
  requestBody?: unknown;
  security?: Array<Record<string, string[]>>;
  parameters?: unknown[];
  responses: Record<string, AnswerDoc>;
  [WITHOUT_DATABASE]?: boolean;
};

/** Every operation of the document with its method. */
function operationsOf(document: OpenAPIObject): Array<[string, Operation]> {
  return Object.values(document.paths).flatMap((pathItem) =>
    (Object.entries(pathItem) as Array<[string, Operation]>).filter(
      ([, operation]) => typeof operation === 'object' && operation !== null && 'responses' in operation,
    ),
  );
}

/** Adds the answers every operation shares to each one, merged with what its decorators say. */
function addSharedErrorAnswers(document: OpenAPIObject): void {
  for (const [method, operation] of operationsOf(document)) {
    const shared: ErrorDocs = { ...EVERY_OPERATION };
    if (operation[WITHOUT_DATABASE] === true) delete shared.DATABASE_UNAVAILABLE;
    if (!['get', 'head', 'options'].includes(method)) Object.assign(shared, EVERY_WRITE);
    if (operation.requestBody !== undefined) Object.assign(shared, EVERY_BODY);
    // What the operation says of a code itself is the more precise.
    for (const code of documentedCodes(operation)) delete shared[code];
    for (const answer of errorResponseDocs(shared)) mergeAnswer(operation, answer);
  }
}

/**
 * The headers of every answer, and the 304 of every GET: Express tags each body it sends and
 * answers a matching If-None-Match itself, on every route (the HTTP cache's fast lane leaves
 * conditional requests to it).
 */
function addHeadersAndNotModified(document: OpenAPIObject): void {
  document.components = { ...document.components, headers: HEADERS, parameters: { 'If-None-Match': IF_NONE_MATCH } };
  for (const [method, operation] of operationsOf(document)) {
    for (const [status, response] of Object.entries(operation.responses)) {
      const headers: Record<string, unknown> = { 'X-Request-Id': headerRef('X-Request-Id') };
      const codes = Object.keys(response.content?.['application/json']?.examples ?? {}) as ErrorCode[];
      if (codes.some((code) => RETRY_AFTER_CODES.has(code))) headers['Retry-After'] = headerRef('Retry-After');
      if (method === 'get' && status.startsWith('2') && response.content !== undefined) headers.ETag = headerRef('ETag');
      response.headers = { ...response.headers, ...headers };
    }
    if (method === 'get') {
      operation.parameters = [...(operation.parameters ?? []), IF_NONE_MATCH_REF];
      operation.responses['304'] = {
        description: 'Not Modified: If-None-Match names the current ETag of the answer; no body',
        headers: { 'X-Request-Id': headerRef('X-Request-Id'), ETag: headerRef('ETag') },
      };
    }
    operation.responses = sortedByStatus(operation.responses);
  }
}

/** Responses in the order of their status, as a reader scans them. */
function sortedByStatus(responses: Record<string, AnswerDoc>): Record<string, AnswerDoc> {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * Nest writes a nullable property of a class type as `nullable` beside `allOf: [reference]`, which
 * validators read as "must be that object" (nullable only widens a `type` of its own schema), so a
 * null example fails. Any of the reference or null says what the API sends.
 */
function allowNullReferences(document: OpenAPIObject): void {
  for (const schema of Object.values(document.components?.schemas ?? {}) as Array<{ properties?: Record<string, NullableRef> }>) {
    for (const property of Object.values(schema.properties ?? {})) {
      if (property.nullable !== true || property.allOf?.length !== 1) continue;
      property.anyOf = [property.allOf[0], { type: 'object', nullable: true, enum: [null] }];
      delete property.allOf;
    }
  }
}
type NullableRef = { nullable?: boolean; allOf?: unknown[]; anyOf?: unknown[] };

/**
 * An operation that declares no security is public (no guard sets one): it says so, `security: []`,
 * rather than leave a reader to guess.
 */
function markPublicOperations(document: OpenAPIObject): void {
  for (const [, operation] of operationsOf(document)) operation.security ??= [];
}

/** The codes an operation's own decorators give an example of. */
function documentedCodes(operation: Operation): ErrorCode[] {
  return Object.values(operation.responses).flatMap((response) => {
    const content = response.content as Record<string, { examples?: Record<string, unknown> }> | undefined;
    return Object.keys(content?.['application/json']?.examples ?? {}) as ErrorCode[];
  });
}

function mergeAnswer(operation: Operation, answer: ErrorResponseDoc): void {
  const key = String(answer.status);
  const existing = operation.responses[key];
  if (existing === undefined) {
    operation.responses[key] = {
      description: answer.description,
      content: { 'application/json': { schema: errorBodySchema(answer.types), examples: answer.examples } },
    };
    return;
  }
  existing.description = existing.description ? `${existing.description}; ${answer.description}` : answer.description;
  const json = ((existing.content ??= {})['application/json'] ??= {});
  // The operation's own codes may have a body with more fields (QUOTA_EXHAUSTED's can_watch_ad), the shared ones not.
  json.schema = mergedSchema(json.schema, answer.types);
  json.examples = { ...(json.examples ?? {}), ...answer.examples };
}

/** The schema of an error answer after codes of `types` joined it: any of the body types, each once. */
function mergedSchema(schema: unknown, types: ErrorResponseDoc['types']): unknown {
  const refs = (s: unknown): string[] => {
    const { $ref, anyOf } = (s ?? {}) as { $ref?: string; anyOf?: Array<{ $ref: string }> };
    return $ref !== undefined ? [$ref] : (anyOf ?? []).map((part) => part.$ref);
  };
  const all = [...new Set([...refs(schema), ...refs(errorBodySchema(types))])];
  return all.length === 1 ? { $ref: all[0] } : { anyOf: all.map(($ref) => ({ $ref })) };
}

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Disclosure Briefing Service API')
    .setDescription(DESCRIPTION + errorCodeTable())
    .setVersion(version)
    // Relative: "Try it out" goes to the origin Swagger UI was loaded from, locally or behind a proxy.
    .addServer('/', 'This server: the origin that serves this document and Swagger UI')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'jwt')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Admin-Key' }, 'admin-key')
    // Google Pub/Sub's push to the Play notifications receiver: its OIDC token, or the shared secret in the URL.
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: "The push subscription's OIDC token (GOOGLE_PUBSUB_AUDIENCE, GOOGLE_PUBSUB_SERVICE_ACCOUNT_EMAIL)",
      },
      'pubsub-oidc',
    )
    .addApiKey(
      { type: 'apiKey', in: 'query', name: 'token', description: 'GOOGLE_PUBSUB_SHARED_SECRET, when the push endpoint URL carries it' },
      'pubsub-token',
    );
  for (const tag of TAGS) config.addTag(tag.name, tag.description);
  const document = SwaggerModule.createDocument(app, config.build());
  addSharedErrorAnswers(document);
  addHeadersAndNotModified(document);
  markPublicOperations(document);
  allowNullReferences(document);
  return document;
}

/** Where Swagger UI is served: its HTML page and the scripts and styles it loads. */
export const SWAGGER_UI_PATH = '/docs';

/** Swagger UI at `/docs`, the OpenAPI JSON at `/docs-json`. */
export function setupSwagger(app: INestApplication): void {
  SwaggerModule.setup(SWAGGER_UI_PATH.slice(1), app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs-json',
    swaggerOptions: { persistAuthorization: true },
  });
}
