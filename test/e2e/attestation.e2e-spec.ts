import type { Server } from 'node:http';
import { Controller, Get, type INestApplication, Logger, Module } from '@nestjs/common';
import { SwaggerModule, DocumentBuilder } from '@nestjs/swagger';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { AppCheckVerifier, type AppCheckVerdict } from '../../src/attestation/app-check-verifier';
import { AttestationModule } from '../../src/attestation/attestation.module';
import { RequiresAttestation } from '../../src/attestation/requires-attestation.decorator';
import { AllExceptionsFilter } from '../../src/common/errors/all-exceptions.filter';
import { loadConfig } from '../../src/app-config';
import { ConfigModule } from '../../src/config/config.module';
import { startTestApp } from '../support/test-app';

const WEB_SECRET = 'web-worker-secret-for-tests';
const VALID_APP_CHECK_TOKEN = 'valid-app-check-token';

/** App Check has no emulator: a verifier that accepts one known token and records what it was asked. */
class FakeAppCheckVerifier extends AppCheckVerifier {
  readonly tokens: string[] = [];

  verify(token: string): Promise<AppCheckVerdict | null> {
    this.tokens.push(token);
    return Promise.resolve(token === VALID_APP_CHECK_TOKEN ? { appId: '1:1234567890:android:abcdef' } : null);
  }
}

@Controller('probe')
class ProbeController {
  @Get('attested')
  @RequiresAttestation()
  attested(): { ok: true } {
    return { ok: true };
  }

  @Get('open')
  open(): { ok: true } {
    return { ok: true };
  }
}

/** A feature module that uses the decorator without importing AttestationModule, as features do. */
@Module({ controllers: [ProbeController] })
class ProbeModule {}

interface Probe {
  app: INestApplication;
  http: Server;
  verifier: FakeAppCheckVerifier;
}

/** A tiny application: the real guard, module and error filter around a dummy route. */
async function startProbe(env: Record<string, string>, options: { realVerifier?: boolean } = {}): Promise<Probe> {
  const config = loadConfig({ LOG_LEVEL: 'silent', ...env });
  const verifier = new FakeAppCheckVerifier();
  let builder = Test.createTestingModule({ imports: [ConfigModule.forRoot(config), AttestationModule, ProbeModule] });
  if (!options.realVerifier) builder = builder.overrideProvider(AppCheckVerifier).useValue(verifier);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication({ logger: false });
  app.useGlobalFilters(new AllExceptionsFilter());
  await app.init();
  return { app, http: app.getHttpServer() as Server, verifier };
}

describe('device attestation: @RequiresAttestation()', () => {
  const probes: Probe[] = [];
  const probe = async (env: Record<string, string>, options?: { realVerifier?: boolean }) => {
    const started = await startProbe(env, options);
    probes.push(started);
    return started;
  };

  beforeAll(() => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });

  afterAll(async () => {
    await Promise.all(probes.map(({ app }) => app.close()));
    jest.restoreAllMocks();
  });

  const attested = (p: Probe, headers: Record<string, string> = {}) => request(p.http).get('/probe/attested').set(headers);

  describe('DEVICE_ATTESTATION=off', () => {
    it('lets every request through without asking the verifier', async () => {
      const p = await probe({ DEVICE_ATTESTATION: 'off', WEB_SECRET });
      await attested(p).expect(200, { ok: true });
      await attested(p, { 'X-Worker-Secret': 'wrong' }).expect(200);
      await attested(p, { 'X-Firebase-AppCheck': 'forged' }).expect(200);
      expect(p.verifier.tokens).toEqual([]);
    });

    it('is the default outside production', async () => {
      const p = await probe({ APP_ENV: 'dev' });
      await attested(p).expect(200);
    });
  });

  describe('DEVICE_ATTESTATION=enforce', () => {
    let p: Probe;

    beforeAll(async () => {
      p = await probe({ DEVICE_ATTESTATION: 'enforce', WEB_SECRET });
    });

    it('answers 403 ATTESTATION_REQUIRED with the standard error body when neither header is sent', async () => {
      const res = await attested(p).expect(403);
      expect(res.body).toEqual({ statusCode: 403, error: 'Forbidden', message: expect.any(String), code: 'ATTESTATION_REQUIRED' });
      expect(res.body.message).toContain('X-Firebase-AppCheck');
    });

    it('treats empty headers as absent', async () => {
      const res = await attested(p, { 'X-Worker-Secret': '', 'X-Firebase-AppCheck': '' }).expect(403);
      expect(res.body.code).toBe('ATTESTATION_REQUIRED');
    });

    it('passes the web server worker with the right X-Worker-Secret', async () => {
      await attested(p, { 'X-Worker-Secret': WEB_SECRET }).expect(200, { ok: true });
    });

    it.each([
      ['a wrong secret', 'not-the-secret'],
      ['a prefix of the secret', WEB_SECRET.slice(0, -1)],
      ['the secret with more appended', `${WEB_SECRET}x`],
      ['the secret in another case', WEB_SECRET.toUpperCase()],
    ])('refuses %s with 403 ATTESTATION_FAILED', async (_case, secret) => {
      const res = await attested(p, { 'X-Worker-Secret': secret }).expect(403);
      expect(res.body).toEqual({ statusCode: 403, error: 'Forbidden', message: 'Device attestation failed', code: 'ATTESTATION_FAILED' });
    });

    it('passes a mobile app whose App Check token the verifier accepts', async () => {
      await attested(p, { 'X-Firebase-AppCheck': VALID_APP_CHECK_TOKEN }).expect(200, { ok: true });
      expect(p.verifier.tokens.at(-1)).toBe(VALID_APP_CHECK_TOKEN);
    });

    it('refuses an App Check token the verifier rejects with 403 ATTESTATION_FAILED', async () => {
      const res = await attested(p, { 'X-Firebase-AppCheck': 'forged-token' }).expect(403);
      expect(res.body).toMatchObject({ statusCode: 403, code: 'ATTESTATION_FAILED' });
      expect(p.verifier.tokens.at(-1)).toBe('forged-token');
    });

    it('passes when either credential is good', async () => {
      await attested(p, { 'X-Worker-Secret': 'wrong', 'X-Firebase-AppCheck': VALID_APP_CHECK_TOKEN }).expect(200);
      await attested(p, { 'X-Worker-Secret': WEB_SECRET, 'X-Firebase-AppCheck': 'forged-token' }).expect(200);
      await attested(p, { 'X-Worker-Secret': 'wrong', 'X-Firebase-AppCheck': 'forged-token' }).expect(403);
    });

    it('leaves routes without the decorator alone', async () => {
      await request(p.http).get('/probe/open').expect(200);
    });

    it('documents both headers and the 403 in OpenAPI', () => {
      const doc = SwaggerModule.createDocument(p.app, new DocumentBuilder().build());
      const operation = doc.paths['/probe/attested'].get!;
      const headers = (operation.parameters as { name: string; in: string; required?: boolean }[]).filter((param) => param.in === 'header');
      expect(headers.map(({ name, required }) => ({ name, required }))).toEqual(
        expect.arrayContaining([
          { name: 'X-Firebase-AppCheck', required: false },
          { name: 'X-Worker-Secret', required: false },
        ]),
      );
      expect(operation.responses['403']).toBeDefined();
      expect(doc.paths['/probe/open'].get!.parameters).toEqual([]);
    });
  });

  describe('DEVICE_ATTESTATION=enforce without WEB_SECRET', () => {
    it('refuses every X-Worker-Secret, the would-be secret included', async () => {
      const p = await probe({ DEVICE_ATTESTATION: 'enforce' });
      for (const secret of [WEB_SECRET, 'undefined', 'null']) {
        const res = await attested(p, { 'X-Worker-Secret': secret }).expect(403);
        expect(res.body.code).toBe('ATTESTATION_FAILED');
      }
      await attested(p, { 'X-Firebase-AppCheck': VALID_APP_CHECK_TOKEN }).expect(200);
    });
  });

  describe('the real AppCheckVerifier without FIREBASE_SERVICE_ACCOUNT', () => {
    it('refuses every App Check token', async () => {
      const p = await probe({ DEVICE_ATTESTATION: 'enforce', WEB_SECRET }, { realVerifier: true });
      const res = await attested(p, { 'X-Firebase-AppCheck': VALID_APP_CHECK_TOKEN }).expect(403);
      expect(res.body.code).toBe('ATTESTATION_FAILED');
      await attested(p, { 'X-Worker-Secret': WEB_SECRET }).expect(200);
    });
  });

  describe('in the whole application', () => {
    it('never guards admin routes or the ad network callback, even when enforced', async () => {
      const t = await startTestApp({ env: { DEVICE_ATTESTATION: 'enforce', ADMIN_KEY: 'operator-key' } });
      try {
        await request(t.http).get('/api/v1/admin/status').set('X-Admin-Key', 'operator-key').expect(200);
        const callback = await request(t.http).get('/api/v1/adnet/ssv?user_id=1').expect(403);
        expect(callback.body.code).toBe('AD_SIGNATURE_INVALID');
      } finally {
        await t.close();
      }
    });
  });
});
