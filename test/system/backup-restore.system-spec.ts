import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { MIGRATIONS } from '../../migrations';
import type { HttpDouble } from '../support/http-double';
import { type DumpableServer, dumpableServer, runTool } from '../support/dump-tools';
import { startUserInfoDouble } from '../support/identity-provider-doubles';
import { ADMIN_KEY, eventually, startSandboxedApp } from '../support/sandboxed-app';
import { RELAXED_RATE_LIMITS, startTestApp } from '../support/test-app';
import { createDatabase, TEST_PG_SERVER_URL, type TestDatabase } from '../support/test-database';

const DOC = path.join(__dirname, '..', '..', 'docs', 'backup-restore.md');

/** The commands of docs/backup-restore.md, with the URLs and the file as arguments. */
const dumpArgs = (url: string, file: string) => ['--format=custom', `--file=${file}`, `--dbname=${url}`];
const restoreArgs = (url: string, file: string) => [
  '--no-owner',
  '--no-privileges',
  '--single-transaction',
  '--exit-on-error',
  `--dbname=${url}`,
  file,
];

describe('backup and restore (docs/backup-restore.md)', () => {
  let server: DumpableServer;
  let userInfo: HttpDouble & { userinfoUrl: string };
  const databases: TestDatabase[] = [];
  let workDir: string;

  beforeAll(async () => {
    server = await dumpableServer(process.env[TEST_PG_SERVER_URL]!, (line) => process.stdout.write(`[backup test] ${line}\n`));
    userInfo = await startUserInfoDouble();
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'briefing-backup-'));
  }, 60_000);
  afterAll(async () => {
    for (const database of databases) await database.drop();
    await userInfo?.close();
    await server?.stop();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  const newDatabase = async () => {
    const database = await createDatabase(server.adminUrl, 'briefing_backup');
    databases.push(database);
    return database;
  };
  const rowCounts = async (url: string) => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name",
      );
      const counts: Record<string, number> = {};
      for (const { table_name } of rows) {
        counts[table_name] = Number((await client.query(`SELECT count(*) AS n FROM ${client.escapeIdentifier(table_name)}`)).rows[0].n);
      }
      return counts;
    } finally {
      await client.end();
    }
  };

  it('the docs give the commands this test runs', () => {
    const doc = fs.readFileSync(DOC, 'utf8');
    expect(doc).toContain('pg_dump --format=custom');
    expect(doc).toContain('pg_restore --no-owner --no-privileges --single-transaction --exit-on-error');
  });

  it('restores a pg_dump into a fresh database, and the service serves the same data from it without migrating', async () => {
    // A service with a user, a watch entry and an analysed, revealed filing, all written through its API.
    const source = await newDatabase();
    const seeding = await startSandboxedApp({
      sandbox: { companyCount: 50 },
      app: { database: source, rateLimits: RELAXED_RATE_LIMITS, env: { IDP1_USERINFO_URL: userInfo.userinfoUrl } },
    });
    const admin = (req: request.Test) => req.set('X-Admin-Key', ADMIN_KEY);
    let token: string;
    let rceptNo: string;
    const reads = (http: typeof seeding.http) => {
      const auth = { Authorization: `Bearer ${token}` };
      return Promise.all([
        request(http).get('/api/v1/auth/me').set(auth).expect(200),
        request(http).get('/api/v1/watchlist').set(auth).expect(200),
        request(http).get(`/api/v1/ai/analyze/${rceptNo}`).set(auth).expect(200),
        request(http).get('/api/v1/quota').set(auth).expect(200),
        request(http).get(`/api/v1/disclosures/${rceptNo}`).expect(200),
      ]).then((answers) => answers.map((answer) => answer.body as unknown));
    };
    let before: unknown[];
    try {
      await admin(request(seeding.http).post('/api/v1/admin/stocks/sync?mode=bootstrap')).expect(202);
      await eventually(
        async () => (await admin(request(seeding.http).get('/api/v1/admin/stocks/sync/status')).expect(200)).body.status === 'completed',
      );
      const company = seeding.sandbox.control.companiesIn('Y')[0];
      const filing = seeding.sandbox.control.publishFiling({ corp_code: company.corpCode });
      rceptNo = filing.rcept_no;
      const today = seeding.sandbox.control.today();
      await admin(
        request(seeding.http)
          .post('/api/v1/admin/disclosures/fetch')
          .query({ beginDate: today, endDate: today, corpCode: company.corpCode }),
      ).expect(201);
      await admin(request(seeding.http).post('/api/v1/admin/scheduler/resume')).expect(200);
      await eventually(
        async () => (await request(seeding.http).get(`/api/v1/ai/analyze/${rceptNo}`).expect(200)).body.status === 'COMPLETED',
      );

      token = (await request(seeding.http).post('/api/v1/auth/idp1/token').send({ access_token: 'user-4242' }).expect(200)).body.token;
      await request(seeding.http)
        .post('/api/v1/watchlist')
        .set('Authorization', `Bearer ${token}`)
        .send({ corp_code: company.corpCode })
        .expect(201);
      await request(seeding.http).post(`/api/v1/ai/analyze/${rceptNo}/reveal`).set('Authorization', `Bearer ${token}`).expect(200);
      before = await reads(seeding.http);
    } finally {
      await seeding.close();
    }
    const [me, watchlist, analysis] = before;
    expect(me).toMatchObject({ user_id: expect.any(Number) });
    expect(watchlist).toEqual([expect.objectContaining({ corp_code: seeding.sandbox.control.companiesIn('Y')[0].corpCode })]);
    expect(analysis).toMatchObject({
      status: 'COMPLETED',
      already_revealed: true,
      one_liner: expect.any(String),
      result: expect.any(Object),
    });

    // The backup, and its restore into a database that has never seen the service.
    const dump = path.join(workDir, 'briefing.dump');
    await runTool(server.tools.pgDump, dumpArgs(source.url, dump));
    expect(fs.readFileSync(dump).subarray(0, 5).toString()).toBe('PGDMP'); // the custom format's signature
    const target = await newDatabase();
    await runTool(server.tools.pgRestore, restoreArgs(target.url, dump));
    expect(await rowCounts(target.url)).toEqual(await rowCounts(source.url));

    // The restored schema is complete: an instance that refuses to start on a missing migration starts.
    const restored = await startTestApp({
      database: target,
      clock: seeding.clock,
      rateLimits: RELAXED_RATE_LIMITS,
      env: { MIGRATIONS_AT_START: 'false' },
    });
    try {
      expect((await restored.dataSource.query('SELECT count(*)::int AS n FROM schema_migrations'))[0].n).toBe(MIGRATIONS.length);
      await request(restored.http).get('/health/ready').expect(200);
      expect(await reads(restored.http)).toEqual(before);
    } finally {
      await restored.close();
    }
  }, 180_000);
});
