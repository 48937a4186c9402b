import { Client, DatabaseError, Pool, type PoolConfig, Query } from 'pg';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { PostgresClient } from '../../src/database/postgres-client';
import { preparedStatement } from '../../src/database/prepared-statements';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

describe('PostgresClient', () => {
  let database: TestDatabase;
  let client: PostgresClient;

  beforeAll(async () => {
    database = await createTestDatabase({ empty: true });
  });
  beforeEach(async () => {
    client = new PostgresClient({ connectionString: database.url, readTimeoutMs: 1_000 });
    await client.connect();
  });
  afterEach(async () => {
    await client.end().catch(() => undefined);
    jest.restoreAllMocks();
  });
  afterAll(() => database.drop());

  it("hands pg a query that carries its callback from the start, and answers as pg's promise form does", async () => {
    // pg's own query, which the client calls (a spy calls through).
    const pgQuery = jest.spyOn(Client.prototype, 'query');
    const sql = 'SELECT n, repeat($1, n) AS text FROM generate_series(1, 3) AS n';
    const ours = await client.query(sql, ['가']);
    expect(pgQuery).toHaveBeenCalledTimes(1);
    const [submitted, ...rest] = pgQuery.mock.calls[0] as unknown[];
    expect(rest).toEqual([]);
    expect(submitted).toBeInstanceOf(Query);
    expect(typeof (submitted as { callback?: unknown }).callback).toBe('function');
    expect(ours.rows).toEqual([
      { n: 1, text: '가' },
      { n: 2, text: '가가' },
      { n: 3, text: '가가가' },
    ]);
    expect(ours.rowCount).toBe(3);
    expect(ours.command).toBe('SELECT');
    expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it("rejects a failed statement with pg's error, its stack leading back to the caller", async () => {
    async function callerOfTheStatement() {
      return await client.query('SELECT * FROM no_such_table WHERE id = $1', [1]);
    }
    const error = (await callerOfTheStatement().catch((caught: unknown) => caught)) as DatabaseError;
    expect(error).toBeInstanceOf(DatabaseError);
    expect(error.code).toBe('42P01');
    expect(error.stack).toContain('callerOfTheStatement');
    // The session goes on.
    expect((await client.query('SELECT 2 AS two', [])).rows).toEqual([{ two: 2 }]);
  });

  it('fails a query the server does not answer in time with "Query read timeout", and closes the session', async () => {
    const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
    client.on('error', () => undefined);
    const started = Date.now();
    await expect(client.query('SELECT pg_sleep(5)', [])).rejects.toThrow('Query read timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(Date.now() - started).toBeLessThan(3_000);
    await ended;
  });

  it("answers a callback and a plain config object as pg does; leaves pg's other forms (rowMode) to pg", async () => {
    const viaCallback = await new Promise((resolve, reject) =>
      client.query('SELECT $1::int AS n', [7], (error, result) => (error ? reject(error) : resolve(result.rows))),
    );
    expect(viaCallback).toEqual([{ n: 7 }]);
    expect((await client.query({ name: 'plain-config', text: 'SELECT $1::int AS n', values: [9] })).rows).toEqual([{ n: 9 }]);
    expect((await client.query({ text: 'SELECT $1::int AS n', values: [8], rowMode: 'array' })).rows).toEqual([[8]]);
  });

  it("bounds the statements of pg-pool (a config object and a callback, the rate limiter's take) by the read timeout too", async () => {
    // As the service's pool: every client it makes gets the read timeout (data-source-options.ts).
    const pool = new Pool({
      connectionString: database.url,
      max: 1,
      Client: PostgresClient as unknown as NonNullable<PoolConfig['Client']>,
      readTimeoutMs: 1_000,
    } as PoolConfig);
    pool.on('error', () => undefined);
    try {
      // A pooled, idle connection first: the case a frozen server left waiting forever.
      await pool.query('SELECT 1');
      const started = Date.now();
      await expect(pool.query({ name: 'slow-take', text: 'SELECT pg_sleep(5)', values: [] })).rejects.toThrow('Query read timeout');
      expect(Date.now() - started).toBeLessThan(3_000);
      await expect(pool.query('SELECT pg_sleep(5)')).rejects.toThrow('Query read timeout');
    } finally {
      await pool.end();
    }
  });

  it('refuses both read timeouts at once', () => {
    expect(() => new PostgresClient({ connectionString: database.url, readTimeoutMs: 1, query_timeout: 1 })).toThrow(/not both/);
  });

  it('prepares a registered statement once per session and then only executes it; other texts stay unnamed', async () => {
    const square = preparedStatement('postgres_client_spec_square', 'SELECT $1::int * $1::int AS square');
    expect((await client.query(square, [3])).rows).toEqual([{ square: 9 }]);
    expect((await client.query(square, [4])).rows).toEqual([{ square: 16 }]);
    expect((await client.query('SELECT $1::int AS unregistered', [5])).rows).toEqual([{ unregistered: 5 }]);
    const prepared = await client.query(
      'SELECT name, statement, generic_plans + custom_plans AS executions FROM pg_prepared_statements',
      [],
    );
    expect(prepared.rows).toEqual([{ name: 'postgres_client_spec_square', statement: square, executions: '2' }]);
  });

  it('closes the session when a migration changed what a prepared statement returns, so the pool replaces it', async () => {
    const dataSource = new DataSource(buildDataSourceOptions(database.url, 1));
    await dataSource.initialize();
    try {
      await dataSource.query('CREATE TABLE prepared_spec_rows (a int)');
      await dataSource.query('INSERT INTO prepared_spec_rows VALUES (1)');
      const everyColumn = preparedStatement('postgres_client_spec_every_column', 'SELECT * FROM prepared_spec_rows');
      expect(await dataSource.query(everyColumn)).toEqual([{ a: 1 }]);
      const [before] = await dataSource.query<{ pid: number }[]>('SELECT pg_backend_pid() AS pid');

      await dataSource.query('ALTER TABLE prepared_spec_rows ADD COLUMN b int DEFAULT 2');
      // PostgreSQL refuses the old statement ("cached plan must not change result type") ...
      await expect(dataSource.query(everyColumn)).rejects.toMatchObject({ code: '0A000' });
      // ... and would refuse it on that session for good; the next query runs on a new one.
      expect(await dataSource.query(everyColumn)).toEqual([{ a: 1, b: 2 }]);
      const [after] = await dataSource.query<{ pid: number }[]>('SELECT pg_backend_pid() AS pid');
      expect(after.pid).not.toBe(before.pid);
    } finally {
      await dataSource.destroy();
    }
  });

  it("is the client of the service's pool", async () => {
    const dataSource = new DataSource(buildDataSourceOptions(database.url, 1));
    await dataSource.initialize();
    try {
      expect(await dataSource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
      const pool = (dataSource.driver as unknown as { master: { _clients: unknown[] } }).master;
      expect(pool._clients).toHaveLength(1);
      expect(pool._clients[0]).toBeInstanceOf(PostgresClient);
    } finally {
      await dataSource.destroy();
    }
  });
});
