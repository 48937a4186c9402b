import express from 'express';
import helmet from 'helmet';
import request from 'supertest';
import { staticHeaders } from './security-headers';

describe('staticHeaders', () => {
  const options = { contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } };

  it('sets exactly the headers the middleware itself sets', async () => {
    const direct = express().use(helmet(options)).get('/', (_req, res) => res.json({}));
    const fixed = express().use(staticHeaders(helmet(options))).get('/', (_req, res) => res.json({}));
    const [a, b] = await Promise.all([request(direct).get('/'), request(fixed).get('/')]);
    const { date: _a, ...expected } = a.headers;
    const { date: _b, ...actual } = b.headers;
    expect(actual).toEqual(expected);
    expect(actual['content-security-policy']).toContain("default-src 'self'");
  });

  it('refuses a middleware whose headers depend on the request, or that does not go on at once', () => {
    expect(() => staticHeaders((req, res, next) => (res.setHeader('X-Url', req.url ?? ''), next()))).toThrow(/must not depend on the request/);
    expect(() => staticHeaders((_req, _res, next) => void setImmediate(next))).toThrow(/must call next\(\) at once/);
  });
});
