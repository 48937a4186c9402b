import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { buildDataSourceOptions, buildMigrationDataSourceOptions } from '../../src/database/data-source-options';
import { runMigrationsLocked } from '../../src/database/migrate';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

describe('database start-up', () => {
  describe('migrations', () => {
    let database: TestDatabase;
    const sources: DataSource[] = [];

    beforeAll(async () => {
      database = await createTestDatabase({ empty: true });
    });
    afterAll(async () => {
      await Promise.all(sources.map((source) => source.destroy()));
      await database?.drop();
    });

    const connect = async () => {
      const source = await new DataSource(buildMigrationDataSourceOptions(database.url)).initialize();
      sources.push(source);
      return source;
    };

    it('apply each migration once when two instances start together', async () => {
      const [first, second] = await Promise.all([connect(), connect()]);
      const [appliedByFirst, appliedBySecond] = await Promise.all([runMigrationsLocked(first), runMigrationsLocked(second)]);

      // One instance did all the work while the other waited on the lock, then found nothing to do.
      const applied = [...appliedByFirst, ...appliedBySecond].sort();
      expect(applied).toEqual(MIGRATIONS.map((migration) => migration.name).sort());
      expect([appliedByFirst.length, appliedBySecond.length]).toContain(0);
      const rows = await first.query('SELECT name FROM schema_migrations');
      expect(rows).toHaveLength(MIGRATIONS.length);
    });

    it('apply nothing on a restart against a migrated database', async () => {
      expect(await runMigrationsLocked(await connect())).toEqual([]);
    });

    it('never let TypeORM synchronise the schema', () => {
      for (const options of [buildDataSourceOptions(database.url), buildMigrationDataSourceOptions(database.url)]) {
        expect(options.synchronize).toBe(false);
        expect(options.migrationsRun).toBe(false);
      }
    });
  });
});
