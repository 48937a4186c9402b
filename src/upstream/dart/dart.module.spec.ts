import { Test } from '@nestjs/testing';
import { getRepositoryToken } from '@nestjs/typeorm';
import { type DartSandbox, startDartSandbox } from '../../../local/dart-sandbox/dart-sandbox';
import { Clock } from '../../common/clock';
import { CommonModule } from '../../common/common.module';
import { EnvReader } from '../../config/env-reader';
import { ConfigModule } from '../../config/config.module';
import { DartClient } from './dart-client';
import { DartBudgetDayEntity, DartRequestStartEntity } from './dart-budget.entities';
import { dartConfig } from './dart.config';
import { DartModule } from './dart.module';
import { Metrics } from '../../metrics/metrics';
import { MetricsModule } from '../../metrics/metrics.module';

describe('DartModule', () => {
  let sandbox: DartSandbox;
  beforeAll(async () => {
    sandbox = await startDartSandbox({ companyCount: 300 });
  });
  afterAll(() => sandbox.close());

  it('provides one DartClient built from the dart section of the configuration, counting days on the injected clock', async () => {
    // The in-process budget: the shared one (the default) needs the database, which the e2e tests bring.
    const config = {
      dart: dartConfig(
        new EnvReader({
          DART_API_BASE_URL: sandbox.baseUrl,
          DART_API_KEY: sandbox.apiKey,
          DART_REQUESTS_PER_DAY: '7',
          DART_BUDGET_STORE: 'memory',
        }),
      ),
    };
    const moduleRef = await Test.createTestingModule({ imports: [ConfigModule.forRoot(config), CommonModule, MetricsModule, DartModule] })
      // No database: the repositories of the shared budget's tables (TypeOrmModule.forFeature) stand unused.
      .overrideProvider(getRepositoryToken(DartBudgetDayEntity))
      .useValue({})
      .overrideProvider(getRepositoryToken(DartRequestStartEntity))
      .useValue({})
      .overrideProvider(Clock)
      .useValue({ now: () => new Date('2026-03-10T14:59:59Z') })
      .compile();
    try {
      const client = moduleRef.get(DartClient);
      expect(moduleRef.get(DartClient)).toBe(client);

      const listed = sandbox.control.companiesIn('Y')[0];
      await expect(client.company(listed.corpCode, 'companyRead')).resolves.toMatchObject({ corp_code: listed.corpCode, corp_cls: 'Y' });
      expect(sandbox.control.requests.at(-1)?.query.crtfc_key).toBe(sandbox.apiKey);
      expect(client.budgetStatus()).toMatchObject({ dailyLimit: 7, usedToday: 1, exhaustedUntil: null });
      const counted = await moduleRef.get(Metrics).upstreamRequests.get();
      expect(counted.values).toEqual([{ labels: { upstream: 'dart', endpoint: 'company.json', result: 'ok' }, value: 1 }]);
    } finally {
      await moduleRef.close();
    }
  });
});
