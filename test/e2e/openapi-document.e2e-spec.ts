import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { OpenAPIObject } from '@nestjs/swagger';
import request from 'supertest';
import { ERROR_STATUS, type ErrorCode } from '../../src/common/errors/error-codes';
import { serialiseOpenApi } from '../../src/openapi';
import { startTestApp, type TestApp } from '../support/test-app';

const OPENAPI_FILE = path.resolve(__dirname, '../../openapi.json');

interface ErrorExample {
  value: { statusCode: number; code: ErrorCode };
}
interface Schema {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  example?: unknown;
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
}
interface MediaType {
  schema?: Schema;
  example?: unknown;
  examples?: Record<string, ErrorExample>;
}
interface Operation {
  'x-without-database'?: boolean;
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { description: string; content?: Record<string, MediaType> }>;
}
interface Document {
  info: { title: string; description: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

describe('the OpenAPI document', () => {
  let t: TestApp;
  let served: Document;

  beforeAll(async () => {
    t = await startTestApp();
    served = (await request(t.http).get('/docs-json').expect(200)).body as Document;
  });
  afterAll(() => t?.close());

  const operations = () =>
    Object.entries(served.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
    );

  it('is committed as openapi.json exactly as the application serves it (run `npm run openapi` after changing the API)', () => {
    const committed = readFileSync(OPENAPI_FILE, 'utf8');
    // Byte for byte, so the file's key order and layout are those `npm run openapi` writes.
    if (committed !== serialiseOpenApi(served as unknown as OpenAPIObject)) {
      const where = differences(JSON.parse(committed), served);
      throw new Error(
        'openapi.json differs from what the application serves at /docs-json ' +
          `(${where.length > 0 ? `at ${where.join(', ')}` : 'same content, other key order or layout'}): ` +
          'run `npm run openapi` and commit openapi.json',
      );
    }
  });

  it('names the service', () => {
    expect(served.info.title).toBe('Disclosure Briefing Service API');
    expect(served.info.description).toContain('Disclosure Briefing Service');
  });

  it('lists every error code as an enum, and its HTTP status, from the one error-code map', () => {
    const code = served.components.schemas.ErrorBody.properties?.code;
    expect(code?.$ref ?? code?.allOf?.[0].$ref).toBe('#/components/schemas/ErrorCode');
    expect(served.components.schemas.ErrorCode.enum).toEqual(Object.keys(ERROR_STATUS));
    for (const [code, status] of Object.entries(ERROR_STATUS)) expect(served.info.description).toContain(`| \`${code}\` | ${status} |`);
  });

  it('documents the 4xx answers of every operation but the health probes, and the 503 of every one that reaches the database', () => {
    const without4xx = operations().filter(
      ({ path, operation }) => !path.startsWith('/health') && !Object.keys(operation.responses).some((status) => status.startsWith('4')),
    );
    expect(without4xx.map(({ method, path }) => `${method} ${path}`)).toEqual([]);
    const without503 = operations().filter(
      ({ operation }) => operation.responses['503'] === undefined && operation['x-without-database'] !== true,
    );
    expect(without503.map(({ method, path }) => `${method} ${path}`)).toEqual([]);
    // The liveness probe never reaches the database, so no 503 can come from it.
    expect(Object.keys(served.paths['/health'].get.responses)).toEqual(['200', '414', '500']);
    // Writes are rate limited; reads never are.
    for (const { method, operation } of operations()) {
      expect([method, operation.responses['429'] !== undefined]).toEqual([
        method,
        method !== 'get' || operation.responses['429'] !== undefined,
      ]);
    }
  });

  it('gives an example body of each error code an operation answers, under the status of that code', () => {
    let examples = 0;
    for (const { operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const byCode = response.content?.['application/json']?.examples ?? {};
        expect(Object.keys(byCode).length).toBeGreaterThan(0);
        // The description says when of each code with an example, once.
        const described = (response.description.match(/`[A-Z_]+`/g) ?? []).map((code) => code.slice(1, -1));
        expect(described.sort()).toEqual(Object.keys(byCode).sort());
        for (const [code, example] of Object.entries(byCode)) {
          expect([code, example.value.code, example.value.statusCode]).toEqual([code, code, ERROR_STATUS[code as ErrorCode]]);
          expect(String(ERROR_STATUS[code as ErrorCode])).toBe(status);
          examples += 1;
        }
      }
    }
    expect(examples).toBeGreaterThan(150);
  });

  it('gives an example of every JSON body an operation takes or answers with', () => {
    const withoutExample: string[] = [];
    for (const { path, method, operation } of operations()) {
      const bodies: Array<[string, Record<string, MediaType> | undefined]> = [
        ['request', operation.requestBody?.content],
        ...Object.entries(operation.responses)
          .filter(([status]) => Number(status) < 400)
          .map(([status, response]): [string, Record<string, MediaType> | undefined] => [status, response.content]),
      ];
      for (const [body, content] of bodies) {
        const json = content?.['application/json'];
        // A whole-body example, or one on every field (Swagger UI builds the body from those).
        if (json === undefined || json.example !== undefined || json.examples !== undefined) continue;
        for (const field of fieldsWithoutExample(json.schema, served.components.schemas))
          withoutExample.push(`${method} ${path} ${body}: ${field}`);
      }
    }
    expect(withoutExample).toEqual([]);
  });

  it('documents the store and ad callbacks', () => {
    for (const path of ['/internal/store-a-notifications', '/internal/store-b-notifications', '/api/v1/adnet/ssv']) {
      expect(served.paths[path]).toBeDefined();
    }
    expect(Object.keys(served.paths['/internal/store-b-notifications'].post.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '413',
      '414',
      '415',
      '429',
      '500',
      '503',
    ]);
  });
});

/** The first few JSON paths where two documents differ, to say where the committed file is stale. */
function differences(committed: unknown, served: unknown, at = '', found: string[] = []): string[] {
  if (found.length >= 5) return found;
  if (typeof committed !== 'object' || typeof served !== 'object' || committed === null || served === null) {
    if (committed !== served) found.push(at || '/');
    return found;
  }
  const a = committed as Record<string, unknown>;
  const b = served as Record<string, unknown>;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const path = `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (!(key in a) || !(key in b)) {
      if (found.length < 5) found.push(path);
    } else differences(a[key], b[key], path, found);
  }
  return found;
}

/** The fields of a body schema that have neither an example nor an enum to show in one. */
function fieldsWithoutExample(
  schema: Schema | undefined,
  schemas: Record<string, Schema>,
  at = 'body',
  seen = new Set<string>(),
): string[] {
  if (schema === undefined || schema.example !== undefined || schema.enum !== undefined) return [];
  if (schema.$ref !== undefined) {
    const name = schema.$ref.split('/').pop() ?? '';
    if (seen.has(name)) return [];
    return fieldsWithoutExample(schemas[name], schemas, name, new Set([...seen, name]));
  }
  const alternatives = schema.allOf ?? schema.oneOf ?? schema.anyOf;
  if (alternatives !== undefined) return alternatives.flatMap((part) => fieldsWithoutExample(part, schemas, at, seen));
  if (schema.items !== undefined) return fieldsWithoutExample(schema.items, schemas, `${at}[]`, seen);
  if (schema.properties !== undefined) {
    return Object.entries(schema.properties).flatMap(([name, field]) => fieldsWithoutExample(field, schemas, `${at}.${name}`, seen));
  }
  return [at];
}
