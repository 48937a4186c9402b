import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { MIGRATIONS } from '../../migrations';

const MIGRATIONS_DIR = path.join(__dirname, '../../migrations');
/** `<timestamp>-<name>.ts`: the migration files, as opposed to index.ts and helpers. */
const MIGRATION_FILE = /^\d{13}-[a-z0-9-]+\.ts$/;

type MigrationClass = new () => MigrationInterface;

/** Every migration class exported by every migration file in the folder, by file name. */
function migrationsInFolder(): { file: string; migration: MigrationClass }[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((file) => MIGRATION_FILE.test(file))
    .sort()
    .flatMap((file) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- every file of the folder, including ones index.ts forgot
      const exported = require(path.join(MIGRATIONS_DIR, file)) as Record<string, unknown>;
      return Object.values(exported)
        .filter((value): value is MigrationClass => typeof value === 'function' && typeof value.prototype?.down === 'function')
        .map((migration) => ({ file, migration }));
    });
}

describe('migrations are forward-only', () => {
  const found = migrationsInFolder();

  it('finds one migration class in every migration file', () => {
    const files = readdirSync(MIGRATIONS_DIR).filter((file) => MIGRATION_FILE.test(file));
    expect(files.length).toBeGreaterThan(0);
    expect(found.map(({ file }) => file)).toEqual(files.sort());
  });

  it('applies every migration of the folder, in file order (none forgotten in index.ts)', () => {
    expect(MIGRATIONS).toEqual(found.map(({ migration }) => migration));
  });

  it.each(found.map(({ file, migration }) => [file, migration] as const))(
    '%s: down() refuses with a clear error and touches nothing',
    async (_file, Migration) => {
      const queries: string[] = [];
      const queryRunner = {
        query: (sql: string) => {
          queries.push(sql);
          return Promise.resolve([]);
        },
      } as unknown as QueryRunner;
      const migration = new Migration();

      await expect(migration.down(queryRunner)).rejects.toThrow(`${migration.name} cannot be reverted: migrations are forward-only`);
      expect(queries).toEqual([]);
    },
  );
});
