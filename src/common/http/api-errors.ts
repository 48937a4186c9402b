import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtension, ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { buildErrorBody, ErrorBody } from '../errors/error-body';
import { ERROR_EXAMPLE_MESSAGES, ERROR_STATUS, type ErrorCode } from '../errors/error-codes';

/** When an operation answers a code: a sentence, or that and a body type with more fields than ErrorBody. */
export type ErrorDoc = string | { when: string; type: Type<ErrorBody>; extras: Record<string, string | number | boolean> };
export type ErrorDocs = Partial<Record<ErrorCode, ErrorDoc>>;

/** One documented error answer: a status, the codes it carries and an example body per code. */
export interface ErrorResponseDoc {
  status: number;
  description: string;
  /** The body types of its codes, each once: ErrorBody, and those with more fields (QUOTA_EXHAUSTED's). */
  types: Array<Type<ErrorBody>>;
  examples: Record<string, { summary: string; value: object }>;
}

/**
 * The codes whose answers carry `Retry-After` (seconds): the rate limiter's refusal and the
 * AppErrors thrown with `retryAfterSeconds` (the database, the disclosure system and its budget).
 */
export const RETRY_AFTER_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'RATE_LIMITED',
  'DATABASE_UNAVAILABLE',
  'UPSTREAM_BUSY',
  'UPSTREAM_UNAVAILABLE',
]);

/** The error answers of `errors`, one per HTTP status (from ERROR_STATUS, never written twice). */
export function errorResponseDocs(errors: ErrorDocs): ErrorResponseDoc[] {
  const byStatus = new Map<number, ErrorResponseDoc>();
  for (const [code, doc] of Object.entries(errors) as Array<[ErrorCode, ErrorDoc]>) {
    const status: number = ERROR_STATUS[code];
    const when = typeof doc === 'string' ? doc : doc.when;
    const response = byStatus.get(status) ?? { status, description: '', types: [], examples: {} };
    const type = typeof doc === 'string' ? ErrorBody : doc.type;
    if (!response.types.includes(type)) response.types.push(type);
    response.description = response.description === '' ? `\`${code}\`: ${when}` : `${response.description}; \`${code}\`: ${when}`;
    const extras = typeof doc === 'string' ? {} : doc.extras;
    response.examples[code] = { summary: when, value: buildErrorBody(status, code, ERROR_EXAMPLE_MESSAGES[code], extras) };
    byStatus.set(status, response);
  }
  return [...byStatus.values()].sort((a, b) => a.status - b.status);
}

/**
 * Documents the error answers of an operation, or of every operation of a controller:
 * per status, which codes it carries and when, with an example body of each.
 * `@ApiErrors({ VALIDATION_FAILED: 'rceptNo is not 14 digits', NOT_FOUND: 'unknown filing' })`.
 */
export function ApiErrors(errors: ErrorDocs): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...errorResponseDocs(errors).flatMap(({ status, description, types, examples }) => [
      ApiExtraModels(...types),
      ApiResponse({ status, description, schema: errorBodySchema(types), examples }),
    ]),
  );
}

/**
 * The schema of an error answer whose codes have these body types: the one type, or any of
 * them (anyOf, not oneOf: a body with more fields is also a valid ErrorBody).
 */
export function errorBodySchema(types: ReadonlyArray<Type<ErrorBody>>): { $ref: string } | { anyOf: Array<{ $ref: string }> } {
  const refs = types.map((type) => ({ $ref: getSchemaPath(type) }));
  return refs.length === 1 ? refs[0] : { anyOf: refs };
}

/** The OpenAPI extension of an operation that never reaches the database. */
export const WITHOUT_DATABASE = 'x-without-database';

/**
 * Marks an operation that never reaches the database, so the document does not give it
 * the 503 DATABASE_UNAVAILABLE every other operation can answer: a liveness probe that
 * seemed to depend on the database would have operators restart healthy instances.
 */
export function ApiWithoutDatabase(): MethodDecorator {
  return ApiExtension(WITHOUT_DATABASE, true);
}
