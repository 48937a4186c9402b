import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { OpenAPIObject } from '@nestjs/swagger';
import request from 'supertest';
import { ERROR_STATUS, type ErrorCode } from '../../src/common/errors/error-codes';
import { RETRY_AFTER_CODES } from '../../src/common/http/api-errors';
import { serialiseOpenApi } from '../../src/openapi';
import { toFirebaseMessage } from '../../src/push/firebase-push-sender';
import { newFilingMessage } from '../../src/push/new-filing-message';
import { SandboxData } from '../../local/dart-sandbox/sandbox-data';
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
  required?: string[];
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
interface Parameter {
  $ref?: string;
  name?: string;
  in?: string;
  example?: unknown;
  schema?: Schema;
}
interface Operation {
  'x-without-database'?: boolean;
  tags?: string[];
  description?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { description: string; headers?: Record<string, { $ref: string }>; content?: Record<string, MediaType> }>;
}
interface Document {
  info: { title: string; description: string };
  servers: Array<{ url: string; description?: string }>;
  tags: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Schema>;
    headers: Record<string, unknown>;
    parameters: Record<string, Parameter>;
    securitySchemes: Record<string, unknown>;
  };
}

/** The operations anyone may call: `security: []`. Any other operation names what it needs. */
const PUBLIC_OPERATIONS = [
  'get /api/v1/adnet/ssv',
  'get /api/v1/companies/{corpCode}',
  'get /api/v1/disclosures',
  'get /api/v1/disclosures/recent',
  'get /api/v1/disclosures/{rceptNo}',
  'get /api/v1/stocks/active',
  'get /api/v1/stocks/search',
  'get /health',
  'get /health/ready',
  'post /api/v1/auth/idp1/token',
  'post /api/v1/auth/idp2/token',
  'post /api/v1/auth/idp3/token',
  'post /internal/store-a-notifications',
];

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
    expect(Object.keys(served.paths['/health'].get.responses)).toEqual(['200', '304', '414', '500']);
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

  it('gives each error answer a schema that every example of it satisfies', () => {
    const unsatisfied: string[] = [];
    for (const { path, method, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const json = response.content?.['application/json'];
        if (Number(status) < 400 || json === undefined) continue;
        for (const [code, example] of Object.entries(json.examples ?? {})) {
          if (!satisfiesRequired(example.value, json.schema, served.components.schemas))
            unsatisfied.push(`${method} ${path} ${status} ${code}`);
        }
      }
    }
    expect(unsatisfied).toEqual([]);
    // The reveal's 429 is the quota's body (with can_watch_ad) or the rate limit's plain one.
    expect(served.paths['/api/v1/ai/analyze/{rceptNo}/reveal'].post.responses['429'].content?.['application/json'].schema).toEqual({
      anyOf: [{ $ref: '#/components/schemas/QuotaExhaustedErrorBody' }, { $ref: '#/components/schemas/ErrorBody' }],
    });
  });

  it('declares its server, relative so that Swagger UI tries requests where it was loaded from, and every tag with a description', () => {
    expect(served.servers).toEqual([{ url: '/', description: expect.stringMatching(/\w/) }]);
    const used = new Set(operations().flatMap(({ operation }) => operation.tags ?? []));
    expect(served.tags.map((tag) => tag.name).sort()).toEqual([...used].sort());
    for (const tag of served.tags) expect([tag.name, tag.description]).toEqual([tag.name, expect.stringMatching(/\w{3}/)]);
  });

  it('says what each operation needs: `security: []` on the public ones, a token optional where it is', async () => {
    const listed = (security: Operation['security']) =>
      operations()
        .filter(({ operation }) => JSON.stringify(operation.security) === JSON.stringify(security))
        .map(({ method, path }) => `${method} ${path}`)
        .sort();
    expect(operations().filter(({ operation }) => operation.security === undefined)).toEqual([]);
    expect(listed([])).toEqual(PUBLIC_OPERATIONS);
    expect(listed([{}, { jwt: [] }])).toEqual(['get /api/v1/ai/analyze/{rceptNo}']);
    for (const { operation } of operations()) {
      for (const scheme of (operation.security ?? []).flatMap((requirement) => Object.keys(requirement))) {
        expect(Object.keys(served.components.securitySchemes)).toContain(scheme);
      }
    }
    // And so it is: anonymous callers read the analysis route (an unknown filing here), a bad token is refused.
    await request(t.http).get('/api/v1/ai/analyze/20261124000123').expect(404);
    await request(t.http).get('/api/v1/ai/analyze/20261124000123').set('Authorization', 'Bearer not-a-token').expect(401);
  });

  it('declares X-Request-Id on every answer, Retry-After with the codes that send it, ETag and 304 on every GET', () => {
    const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
    let retryAfter = 0;
    for (const { path, method, operation } of operations()) {
      const at = `${method} ${path}`;
      for (const [status, response] of Object.entries(operation.responses)) {
        const codes = Object.keys(response.content?.['application/json']?.examples ?? {}) as ErrorCode[];
        const sendsRetryAfter = codes.some((code) => RETRY_AFTER_CODES.has(code));
        const tagged = method === 'get' && (status.startsWith('2') || status === '304');
        expect([at, status, response.headers]).toEqual([
          at,
          status,
          {
            'X-Request-Id': ref('X-Request-Id'),
            ...(sendsRetryAfter ? { 'Retry-After': ref('Retry-After') } : {}),
            ...(tagged && (status === '304' || response.content !== undefined) ? { ETag: ref('ETag') } : {}),
          },
        ]);
        if (sendsRetryAfter) retryAfter += 1;
      }
      expect([at, operation.responses['304'] !== undefined]).toEqual([at, method === 'get']);
      expect([at, (operation.parameters ?? []).some((p) => p.$ref === '#/components/parameters/If-None-Match')]).toEqual([
        at,
        method === 'get',
      ]);
    }
    // Every operation that reaches the database, and every write (rate limited).
    expect(retryAfter).toBeGreaterThan(operations().length);
    expect(Object.keys(served.components.headers).sort()).toEqual(['ETag', 'Retry-After', 'X-Request-Id']);
  });

  it('answers as the headers say: X-Request-Id and ETag, and 304 to If-None-Match, on cached and uncached routes', async () => {
    for (const url of ['/api/v1/disclosures/recent', '/health']) {
      const first = await request(t.http).get(url).expect(200);
      expect(first.headers).toMatchObject({ 'x-request-id': expect.any(String), etag: expect.stringMatching(/^W\/"/) });
      const again = await request(t.http)
        .get(url)
        .set('If-None-Match', first.headers.etag as string)
        .expect(304);
      expect(again.headers).toMatchObject({ 'x-request-id': expect.any(String), etag: first.headers.etag });
      expect(again.text).toBe('');
    }
  });

  it('describes the push a device receives, field for field what the sender hands FCM, where a client developer looks', () => {
    const message = toFirebaseMessage(
      newFilingMessage('token', {
        rceptNo: '20261124000123',
        corpCode: '00126380',
        corpName: '삼성전자',
        reportName: '유상증자결정',
        oneLiner: null,
      }),
      Date.now(),
    );
    expect(schemaFields(served.components.schemas.PushNotification, served.components.schemas)).toEqual(valueFields(message));
    const push = served.tags.find((tag) => tag.name === 'push');
    expect(push?.description).toEqual(expect.stringContaining('`PushNotification`'));
    expect(push?.description).toEqual(expect.stringContaining('관심 기업 새 공시 {n}건'));
    expect(served.paths['/api/v1/push/fcm-token'].post.description).toEqual(expect.stringContaining('`PushNotification`'));
    // The local stand-in records what it would send: its data is the same schema.
    const recorded = served.components.schemas.RecordedPushMessageView.properties?.data;
    expect(recorded?.$ref ?? recorded?.allOf?.[0].$ref).toBe('#/components/schemas/PushData');
  });

  it('prefills company codes of the local stock master, so that "Try it out" works after npm start', () => {
    // The companies of `npm start`'s local disclosure system (local/local-stand-ins.ts: seed 1, 115,000 companies);
    // the stock master keeps those of the boards Y and K (src/stocks/stock-sync.service.ts).
    const sandbox = new SandboxData({ seed: 1, companyCount: 115_000, pastDays: 0, filingsPerBusinessDay: 0, today: () => '20261124' });
    const examples = corpCodeExamples(served);
    expect(examples.length).toBeGreaterThanOrEqual(4);
    for (const { at, example } of examples) {
      expect([at, sandbox.company(String(example))?.market]).toEqual([at, expect.stringMatching(/^[YK]$/)]);
    }
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

/** Whether `value` has every required property of the schema, or of one of its alternatives. */
function satisfiesRequired(value: object, schema: Schema | undefined, schemas: Record<string, Schema>): boolean {
  if (schema === undefined) return false;
  if (schema.$ref !== undefined) return satisfiesRequired(value, schemas[schema.$ref.split('/').pop() ?? ''], schemas);
  if (schema.anyOf !== undefined) return schema.anyOf.some((part) => satisfiesRequired(value, part, schemas));
  return (schema.required ?? []).every((field) => field in value);
}

/** The field paths of a schema's objects, its $refs followed, sorted. */
function schemaFields(schema: Schema | undefined, schemas: Record<string, Schema>, at = ''): string[] {
  if (schema?.$ref !== undefined) return schemaFields(schemas[schema.$ref.split('/').pop() ?? ''], schemas, at);
  if (schema?.allOf !== undefined) return schema.allOf.flatMap((part) => schemaFields(part, schemas, at));
  if (schema?.properties === undefined) return [at];
  return Object.entries(schema.properties)
    .flatMap(([name, field]) => schemaFields(field, schemas, `${at}/${name}`))
    .sort();
}

/** The field paths of a plain value's objects, sorted. */
function valueFields(value: unknown, at = ''): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [at];
  return Object.entries(value)
    .flatMap(([name, field]) => valueFields(field, `${at}/${name}`))
    .sort();
}

/** The examples of company codes a request sends: corpCode parameters and corp_code body fields. */
function corpCodeExamples(document: Document): Array<{ at: string; example: unknown }> {
  const found: Array<{ at: string; example: unknown }> = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.name === 'corpCode')
          found.push({ at: `${method} ${path} ${parameter.in}`, example: parameter.example ?? parameter.schema?.example });
      }
      const body = operation.requestBody?.content['application/json']?.schema;
      const schema = body?.$ref !== undefined ? document.components.schemas[body.$ref.split('/').pop() ?? ''] : body;
      const field = schema?.properties?.corp_code;
      if (field !== undefined) found.push({ at: `${method} ${path} body`, example: field.example });
    }
  }
  return found;
}
