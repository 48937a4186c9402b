import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { buildMigrationDataSourceOptions } from '../../src/database/data-source-options';
import { runMigrationsLocked } from '../../src/database/migrate';

/**
 * Migrates an empty database up to just before `migration` and hands `seed` a connection
 * to that older schema, to store what the previous version left behind; the connection
 * is closed afterwards. The application started next applies `migration` itself.
 */
export async function seedSchemaBefore(
  databaseUrl: string,
  migration: (typeof MIGRATIONS)[number],
  seed: (old: DataSource) => Promise<void>,
): Promise<void> {
  const index = MIGRATIONS.indexOf(migration);
  if (index < 0) throw new Error(`${migration.name} is not in migrations/index.ts`);
  const old = new DataSource({ ...buildMigrationDataSourceOptions(databaseUrl), migrations: MIGRATIONS.slice(0, index) });
  await old.initialize();
  try {
    await runMigrationsLocked(old);
    await seed(old);
  } finally {
    await old.destroy();
  }
}
