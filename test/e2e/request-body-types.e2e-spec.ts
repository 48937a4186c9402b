import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { bearerFor, createUser } from '../support/fixtures';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

const QUIET_HOURS = '{"quiet_start":"22:00","quiet_end":"07:00"}';
const ERROR_BODY = { statusCode: 415, error: 'Unsupported Media Type', message: expect.any(String), code: 'UNSUPPORTED_MEDIA_TYPE' };

describe('request bodies are JSON: 415 for any other type, no type needed without a body', () => {
  let t: TestApp;
  let origin: string;
  let auth: string;

  beforeAll(async () => {
    t = await startTestApp({ rateLimits: RELAXED_RATE_LIMITS });
    // Listening, for the requests supertest cannot make: a body without Content-Type, a chunked one.
    await new Promise<void>((resolve) => t.http.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(t.http.address() as AddressInfo).port}`;
    auth = bearerFor(t, await createUser(t.dataSource));
  });

  afterAll(async () => {
    await t?.close();
  });

  const setQuietHours = () => request(t.http).put('/api/v1/push/preferences').set('Authorization', auth);
  /** The stored quiet hours: a refused body must have changed nothing. */
  const quietHours = async () => (await request(t.http).get('/api/v1/push/preferences').set('Authorization', auth)).body as object;

  it.each([
    ['text/plain', 'text/plain'],
    ['text/plain; charset=utf-8', 'text/plain'],
    // What `curl -d` sends without -H: the body used to be parsed as a form and refused by validation.
    ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
    ['multipart/form-data; boundary=x', 'multipart/form-data'],
    ['Application/XML', 'application/xml'],
  ])('answers 415 to a %s body, naming the type it needs', async (contentType, named) => {
    const before = await quietHours();
    const res = await setQuietHours().set('Content-Type', contentType).send(QUIET_HOURS);

    expect(res.status).toBe(415);
    expect(res.body).toEqual(ERROR_BODY);
    expect(res.body.message).toBe(`The request body must be JSON, sent with Content-Type: application/json (not ${named})`);
    expect(await quietHours()).toEqual(before);
  });

  it('answers 415 to a body without a Content-Type', async () => {
    const res = await fetch(`${origin}/api/v1/push/preferences`, {
      method: 'PUT',
      headers: { Authorization: auth },
      // Bytes, so that fetch adds no Content-Type of its own.
      body: new TextEncoder().encode(QUIET_HOURS),
    });

    expect(res.status).toBe(415);
    expect(await res.json()).toEqual({
      ...ERROR_BODY,
      message: 'The request body has no Content-Type: send JSON with Content-Type: application/json',
    });
  });

  it('answers 415 to a chunked body of another type, and lets an empty chunked one through', async () => {
    const chunked = (text: string) =>
      fetch(`${origin}/api/v1/quota/ad-reward`, {
        method: 'POST',
        headers: { Authorization: auth },
        body: new ReadableStream({
          start(controller) {
            if (text !== '') controller.enqueue(new TextEncoder().encode(text));
            controller.close();
          },
        }),
        duplex: 'half',
      } as RequestInit);

    const refused = await chunked('{}');
    expect(refused.status).toBe(415);
    expect(await refused.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    const empty = await chunked('');
    expect(empty.status).toBe(200);
    expect(await empty.json()).toMatchObject({ weekly_used: expect.any(Number) });
  });

  it.each(['application/json', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'APPLICATION/JSON'])(
    'takes JSON sent as %s',
    async (contentType) => {
      const res = await setQuietHours().set('Content-Type', contentType).send(QUIET_HOURS);

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ quiet_start: '22:00', quiet_end: '07:00', time_zone: 'Asia/Seoul' });
    },
  );

  it('still answers 415, not 400, to JSON in a charset it cannot decode', async () => {
    const res = await setQuietHours().set('Content-Type', 'application/json; charset=latin1').send(QUIET_HOURS);
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  describe('a request without a body needs no Content-Type', () => {
    const reward = () => request(t.http).post('/api/v1/quota/ad-reward').set('Authorization', auth);

    it('a POST with no body and no Content-Type (curl -X POST)', async () => {
      const res = await fetch(`${origin}/api/v1/quota/ad-reward`, { method: 'POST', headers: { Authorization: auth } });
      expect(res.status).toBe(200);
    });

    it.each(['application/x-www-form-urlencoded', 'text/plain'])(
      'a POST with an empty body labelled %s (curl -X POST -d "")',
      async (contentType) => {
        const res = await reward().set('Content-Type', contentType).set('Content-Length', '0');
        expect(res.status).toBe(200);
      },
    );

    it('a GET with a body of another type, which no GET route reads', async () => {
      const res = await request(t.http).get('/api/v1/quota').set('Authorization', auth).set('Content-Type', 'text/plain').send('hello');
      expect(res.status).toBe(200);
    });
  });

  it('says each problem of a JSON body once (two checks of one field share their message)', async () => {
    const res = await setQuietHours().set('Content-Type', 'application/json').send('{}');

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(res.body.message).toBe(
      'quiet_start must be a KST time "HH:MM" (00:00 to 23:59), or null; quiet_end must be a KST time "HH:MM" (00:00 to 23:59), or null',
    );
  });
});
