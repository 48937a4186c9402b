import { DataSource } from 'typeorm';
import { buildMigrationDataSourceOptions } from '../../src/database/data-source-options';
import { runMigrationsLocked } from '../../src/database/migrate';
import { ENTITIES } from '../../src/entities';
import { startTestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

/**
 * The migrations own the schema; the entities describe it. If the two disagree,
 * TypeORM's schema builder has statements to propose: this test expects none.
 *
 * What that diff does not see: TypeORM matches an index by its name, columns and
 * uniqueness (not its WHERE clause or column order) and a CHECK constraint by its
 * name (not its expression). So a second test builds the schema from the entities
 * alone (TypeORM's synchronize, on an empty database) and compares PostgreSQL's own
 * rendering of every index and constraint with the migrated one. An index TypeORM
 * cannot express (e.g. a DESC or NULLS FIRST column) is declared with
 * `synchronize: false`: the diff leaves it alone, and the comparison names it as
 * not compared rather than hiding it.
 */
describe('entities and migrations', () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    // A clone of the run's migrated template; running the migrations again proves it is up to date.
    database = await createTestDatabase();
    dataSource = await new DataSource({ ...buildMigrationDataSourceOptions(database.url), entities: ENTITIES }).initialize();
    await runMigrationsLocked(dataSource);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('are the entities the feature modules register (TypeOrmModule.forFeature), which the server loads', async () => {
    const t = await startTestApp({ database });
    try {
      const registered = t.dataSource.entityMetadatas.map((metadata) => metadata.target);
      expect(registered.filter((target) => !ENTITIES.some((entity) => entity === target))).toEqual([]);
      const name = (target: (typeof registered)[number]) => (typeof target === 'string' ? target : target.name);
      expect(registered.map(name).sort()).toEqual(ENTITIES.map(name).sort());
    } finally {
      await t.close();
    }
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

  it('render every index and constraint the entities declare as the migrations do', async () => {
    const synchronised = await createTestDatabase({ empty: true });
    const fromEntities = await new DataSource({
      ...buildMigrationDataSourceOptions(synchronised.url),
      entities: ENTITIES,
      migrations: [],
    }).initialize();
    try {
      await fromEntities.synchronize();
      const notCompared = new Set(
        fromEntities.entityMetadatas.flatMap((metadata) =>
          metadata.indices.filter((index) => !index.synchronize).map((index) => index.name),
        ),
      );
      const migrated = await schemaObjects(dataSource, notCompared);
      const declared = await schemaObjects(fromEntities, notCompared);
      expect(declared).toEqual(migrated);
    } finally {
      await fromEntities.destroy();
      await synchronised.drop();
    }
  });
});

/**
 * Every index and constraint of the public schema, by name, as PostgreSQL renders it;
 * primary keys by table (TypeORM names them itself), `skip` left out.
 */
async function schemaObjects(source: DataSource, skip: Set<string>): Promise<Record<string, string>> {
  const rows: { name: string; definition: string }[] = await source.query(
    `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition
     FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND NOT i.indisprimary AND c.relname <> 'schema_migrations'
     UNION ALL
     SELECT CASE WHEN k.contype = 'p' THEN 'primary key of ' || t.relname ELSE k.conname END, pg_get_constraintdef(k.oid)
     FROM pg_constraint k JOIN pg_class t ON t.oid = k.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = 'public' AND t.relname <> 'schema_migrations'`,
  );
  return Object.fromEntries(rows.filter((row) => !skip.has(row.name)).map((row) => [row.name, row.definition]));
}
