import { DataSource, type EntityManager } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { createTestDatabase, type TestDatabase } from './test-database';

/**
 * The integration tier (test/integration/*.int-spec.ts): a table's owner, constructed
 * directly, against a real PostgreSQL database migrated as production's is, without the
 * application. Each spec file gets a database of its own, cloned from the run's migrated
 * template (global-setup.ts), and pools made with the application's own options
 * (data-source-options.ts: its client, its statement timeouts).
 */
export interface OwnerDatabase {
  /** The spec's database. */
  readonly url: string;
  /** A pool on it, as an instance of the service has. */
  readonly dataSource: DataSource;
  /** Another pool on the same database: a second instance of the service. Closed with the database. */
  openPool(size?: number): Promise<DataSource>;
}

/**
 * Registers the hooks that create the spec's database before its tests and drop it after
 * them; the answer's fields are usable inside the tests (and `beforeAll`s declared after).
 */
export function useOwnerDatabase(options: { poolSize?: number } = {}): OwnerDatabase {
  let database: TestDatabase | undefined;
  let main: DataSource | undefined;
  const pools: DataSource[] = [];
  const openPool = async (size = options.poolSize ?? 10): Promise<DataSource> => {
    if (!database) throw new Error('the owner database is made in beforeAll: use it inside a test or a later hook');
    const pool = await new DataSource(buildDataSourceOptions(database.url, size)).initialize();
    pools.push(pool);
    return pool;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    main = await openPool();
  });
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.destroy()));
    await database?.drop();
  });

  return {
    get url() {
      if (!database) throw new Error('the owner database is made in beforeAll');
      return database.url;
    },
    get dataSource() {
      if (!main) throw new Error('the owner database is made in beforeAll');
      return main;
    },
    openPool,
  };
}

/** A transaction held open by the test: what it did is visible to others, and its locks held, only until it ends. */
export interface HeldTransaction<T> {
  /** What `work` answered, once it ran (its locks are taken then). */
  done: Promise<T>;
  /** Ends the transaction: commits it, or rolls it back; resolves once it ended. */
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/**
 * Runs `work` in a transaction of its own and keeps the transaction open until the test
 * ends it, so another transaction can be started while this one holds its locks.
 */
export function holdTransaction<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): HeldTransaction<T> {
  let end!: (outcome: 'commit' | 'rollback') => void;
  const ending = new Promise<'commit' | 'rollback'>((resolve) => (end = resolve));
  let answer!: (value: T) => void;
  let fail!: (error: unknown) => void;
  const done = new Promise<T>((resolve, reject) => {
    answer = resolve;
    fail = reject;
  });
  const ended = (async () => {
    const runner = dataSource.createQueryRunner();
    try {
      await runner.connect();
      await runner.startTransaction();
      try {
        answer(await work(runner.manager));
      } catch (error) {
        fail(error);
        await runner.rollbackTransaction();
        return;
      }
      if ((await ending) === 'commit') await runner.commitTransaction();
      else await runner.rollbackTransaction();
    } catch (error) {
      fail(error);
      throw error;
    } finally {
      await runner.release();
    }
  })();
  // A failure of `work` is reported through `done`; `ended` only says when the transaction is over.
  ended.catch(() => undefined);
  return {
    done,
    commit: async () => {
      end('commit');
      await ended;
    },
    rollback: async () => {
      end('rollback');
      await ended;
    },
  };
}
