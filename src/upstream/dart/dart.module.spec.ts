import { Test } from '@nestjs/testing';
import { type DartSandbox, startDartSandbox } from '../../sandbox/dart/dart-sandbox';
import { loadConfig } from '../../config/app-config';
import { ConfigModule } from '../../config/config.module';
import { DartClient } from './dart-client';
import { DartModule } from './dart.module';

describe('DartModule', () => {
  let sandbox: DartSandbox;
  beforeAll(async () => {
    sandbox = await startDartSandbox({ companyCount: 300 });
  });
  afterAll(() => sandbox.close());

  it('provides one DartClient built from the dart section of the configuration', async () => {
    const config = loadConfig({ DART_API_BASE_URL: sandbox.baseUrl, DART_API_KEY: sandbox.apiKey });
    const moduleRef = await Test.createTestingModule({ imports: [ConfigModule.forRoot(config), DartModule] }).compile();
    try {
      const client = moduleRef.get(DartClient);
      expect(moduleRef.get(DartClient)).toBe(client);

      const listed = sandbox.control.companiesIn('Y')[0];
      await expect(client.company(listed.corpCode)).resolves.toMatchObject({ corp_code: listed.corpCode, corp_cls: 'Y' });
      expect(sandbox.control.requests.at(-1)?.query.crtfc_key).toBe(sandbox.apiKey);
    } finally {
      await moduleRef.close();
    }
  });
});
