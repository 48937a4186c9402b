import { DataSource } from 'typeorm';
import { buildMigrationDataSourceOptions } from '../../src/database/data-source-options';
import { ENTITIES } from '../../src/database/entities';
import { runMigrationsLocked } from '../../src/database/migrate';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

/**
 * The migrations own the schema; the entities describe it. If the two disagree,
 * TypeORM's schema builder has statements to propose: this test expects none.
 *
 * What the diff does not see: TypeORM matches an index by its name, columns and
 * uniqueness (not its WHERE clause or column order) and a CHECK constraint by its
 * name (not its expression). The entities still declare both (`@Index(…, { where })`,
 * `@Check(name, expression)`) as the migrations wrote them, so a reader finds them there.
 */
describe('entities and migrations', () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await new DataSource(buildMigrationDataSourceOptions(database.url)).initialize();
    await runMigrationsLocked(dataSource);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('describe every migrated table with an entity', async () => {
    const rows: { table_name: string }[] = await dataSource.query(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'schema_migrations'",
    );
    const described = ENTITIES.map((entity) => dataSource.getMetadata(entity).tableName).sort();
    expect(described).toEqual(rows.map((row) => row.table_name).sort());
  });

  it('leave TypeORM no schema change to propose on a migrated database', async () => {
    const pending = await dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((query) => query.query)).toEqual([]);
  });
});
