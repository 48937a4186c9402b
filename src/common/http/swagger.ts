import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { version } from '../../../package.json';
import { ERROR_STATUS, type ErrorCode } from '../errors/error-codes';
import { type ErrorDocs, errorBodyRef, type ErrorResponseDoc, errorResponseDocs, WITHOUT_DATABASE } from './api-errors';
import { MAX_URL_LENGTH } from './url-length';

const DESCRIPTION = `The **Disclosure Briefing Service**: filings of listed Korean companies from the national
disclosure system (OpenDART), each with a one-line AI summary and a full analysis; signed-in users reveal
full analyses within a weekly quota refilled by rewarded ads, watch companies for push notifications of
new filings, and subscribe (\`pro\`, \`max\`) through the app stores. Operators use the \`admin\` routes
with \`X-Admin-Key\`.

Sign in with a provider's token at \`POST /api/v1/auth/idp{1,2,3}/token\` and send the answer's \`token\`
as \`Authorization: Bearer …\`. Locally, \`npm start\` signs \`sandbox-<name>\` in at idp1.

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
  UNSUPPORTED_MEDIA_TYPE: "the body's Content-Encoding or charset is not supported",
};

type Operation = { requestBody?: unknown; responses: Record<string, Record<string, unknown>>; [WITHOUT_DATABASE]?: boolean };

/** Adds the answers every operation shares to each one, merged with what its decorators say. */
function addSharedErrorAnswers(document: OpenAPIObject): void {
  for (const pathItem of Object.values(document.paths)) {
    for (const [method, operation] of Object.entries(pathItem) as Array<[string, Operation]>) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue;
      const shared: ErrorDocs = { ...EVERY_OPERATION };
      if (operation[WITHOUT_DATABASE] === true) delete shared.DATABASE_UNAVAILABLE;
      if (!['get', 'head', 'options'].includes(method)) Object.assign(shared, EVERY_WRITE);
      if (operation.requestBody !== undefined) Object.assign(shared, EVERY_BODY);
      // What the operation says of a code itself is the more precise.
      for (const code of documentedCodes(operation)) delete shared[code];
      for (const answer of errorResponseDocs(shared)) mergeAnswer(operation, answer);
    }
  }
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
  const existing = operation.responses[key] as
    { description?: string; content?: Record<string, { schema?: unknown; examples?: Record<string, unknown> }> } | undefined;
  if (existing === undefined) {
    operation.responses[key] = {
      description: answer.description,
      content: { 'application/json': { schema: errorBodyRef(), examples: answer.examples } },
    };
    return;
  }
  existing.description = existing.description ? `${existing.description}; ${answer.description}` : answer.description;
  const json = (existing.content ??= {})['application/json'] ?? (existing.content['application/json'] = { schema: errorBodyRef() });
  json.examples = { ...(json.examples ?? {}), ...answer.examples };
}

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Disclosure Briefing Service API')
    .setDescription(DESCRIPTION + errorCodeTable())
    .setVersion(version)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'jwt')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Admin-Key' }, 'admin-key')
    .build();
  const document = SwaggerModule.createDocument(app, config);
  addSharedErrorAnswers(document);
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
