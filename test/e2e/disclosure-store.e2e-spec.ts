import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { DisclosuresRepository } from '../../src/disclosures/disclosures.repository';
import { FEED_LIMITS } from '../../src/disclosures/dto/list-disclosures.dto';
import type { DartFiling } from '../../src/upstream/dart/dart.types';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

/** How PostgreSQL runs the feed statements, on a pool of one connection so that its prepared statements can be read. */
describe('DisclosuresRepository feed statements', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let store: DisclosuresRepository;

  const preparedStatements = async () =>
    new Map(
      (
        await dataSource.query<{ name: string; generic_plans: string; custom_plans: string }[]>(
          'SELECT name, generic_plans, custom_plans FROM pg_prepared_statements',
        )
      ).map((row) => [row.name, { generic: Number(row.generic_plans), custom: Number(row.custom_plans) }]),
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = new DataSource(buildDataSourceOptions(database.url, 1));
    await dataSource.initialize();
    store = new DisclosuresRepository(dataSource);
    const filings: DartFiling[] = Array.from({ length: 30 }, (_, i) => ({
      rcept_no: `202611200${String(i).padStart(5, '0')}`,
      corp_code: `0012638${i % 3}`,
      corp_name: `회사${i % 3}`,
      stock_code: '',
      corp_cls: 'E',
      report_nm: '주요사항보고서',
      rcept_dt: `202611${String(10 + (i % 10)).padStart(2, '0')}`,
      flr_nm: `회사${i % 3}`,
      rm: '',
    }));
    await dataSource.transaction((manager) => store.insertNew(manager, filings));
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database.drop();
  });

  it('plans the newest filings at the default limit once per connection, and any other limit through the parameterised statement', async () => {
    const byDefault = FEED_LIMITS.recent.fallback;
    const newest = await store.list({ limit: byDefault });
    expect(newest).toHaveLength(byDefault);
    for (let i = 0; i < 6; i++) expect(await store.list({ limit: byDefault })).toEqual(newest);
    expect(await store.list({ limit: 3 })).toEqual(newest.slice(0, 3));

    const statements = await preparedStatements();
    // Seven executions, one plan kept for all of them.
    expect(statements.get(`disclosures_feed_limit_${byDefault}`)).toEqual({ generic: 7, custom: 0 });
    expect(statements.get('disclosures_feed')).toEqual({ generic: 0, custom: 1 });
  });

  it("uses the company's own statement, with the limit as a parameter, for a company's filings", async () => {
    const filings = await store.list({ corpCode: '00126381', limit: FEED_LIMITS.filtered.fallback });
    expect(filings).toHaveLength(10);
    expect(new Set(filings.map((filing) => filing.corp_code))).toEqual(new Set(['00126381']));
    const statements = await preparedStatements();
    expect(statements.get('disclosures_feed_company')).toEqual({ generic: 0, custom: 1 });
    expect([...statements.keys()].filter((name) => name.startsWith('disclosures_feed_company_limit'))).toEqual([]);
  });
});
