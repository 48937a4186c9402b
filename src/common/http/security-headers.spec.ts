import express from 'express';
import helmet from 'helmet';
import request from 'supertest';
import { securityHeaders } from './security-headers';

describe('securityHeaders', () => {
  const documents = { contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } };
  const api = { contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"] } } } as const;
  const recorded = express()
    .use(securityHeaders({ documentsPath: '/docs', documents: helmet(documents), api: helmet(api) }))
    .get('*path', (_req, res) => res.json({}));
  const headersOf = async (app: express.Express, url: string) => {
    const { date: _date, etag: _etag, ...headers } = (await request(app).get(url)).headers;
    return headers;
  };

  it("sets exactly the headers the documents' middleware sets on the documents' path and below it", async () => {
    const direct = express()
      .use(helmet(documents))
      .get('*path', (_req, res) => res.json({}));
    for (const url of ['/docs', '/docs/', '/docs/swagger-ui.css', '/docs?tab=1']) {
      const expected = await headersOf(direct, url);
      expect(await headersOf(recorded, url)).toEqual(expected);
      expect(expected['content-security-policy']).toContain("default-src 'self'");
    }
  });

  it("sets exactly the headers the API's middleware sets everywhere else, also on paths that only begin like the documents'", async () => {
    const direct = express()
      .use(helmet(api))
      .get('*path', (_req, res) => res.json({}));
    for (const url of ['/', '/api/v1/disclosures', '/docs-json', '/docsx', '/api/docs']) {
      const expected = await headersOf(direct, url);
      expect(await headersOf(recorded, url)).toEqual(expected);
      expect(expected['content-security-policy']).toBe("default-src 'none'");
    }
  });

  it('refuses a middleware whose headers depend on the request, or that does not go on at once', () => {
    const fine = helmet(api);
    expect(() =>
      securityHeaders({
        documentsPath: '/docs',
        documents: fine,
        api: (req, res, next) => (res.setHeader('X-Url', req.url ?? ''), next()),
      }),
    ).toThrow(/must not depend on the request/);
    expect(() => securityHeaders({ documentsPath: '/docs', api: fine, documents: (_req, _res, next) => void setImmediate(next) })).toThrow(
      /must call next\(\) at once/,
    );
  });
});
