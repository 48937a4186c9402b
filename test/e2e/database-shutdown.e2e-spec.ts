import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../local/embedded-postgres';
import { PushDispatcher } from '../../src/push/push-dispatcher';
import { eventually } from '../support/eventually';
import { bearerFor, createUsers } from '../support/fixtures';
import { isRunning } from '../support/server-process';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

/** As many clients as wrote when the process ended (issue 28, finding 3). */
const CLIENTS = 16;
const WATCHED = '00126380';

/** Where the database is when a request is sent or answered. */
type Phase = 'serving' | 'stopping' | 'stopped' | 'restarting' | 'restarted';

interface Answer {
  client: number;
  call: string;
  sentIn: Phase;
  answeredIn: Phase;
  status: number;
  code?: string;
  retryAfter?: string;
}

const served = (answer: Answer) => answer.status >= 200 && answer.status < 300;
const unavailable = (answer: Answer) => answer.status === 503 && answer.code === 'DATABASE_UNAVAILABLE' && Number(answer.retryAfter) > 0;

/**
 * PostgreSQL shuts down (fast, then immediate mode) while 16 clients write inside transactions
 * (quiet hours, which reschedule held pushes; watch entries under the user's row lock) and the
 * background jobs run (fleet heartbeats, the leadership session, the push dispatcher's passes).
 * The process survives it: Jest fails the test on any uncaught exception or unhandled rejection
 * in the process, which is what ended the service before (src/process-faults.ts keeps a database
 * one from ending it). Every answer meanwhile is 503 DATABASE_UNAVAILABLE with Retry-After, never
 * a 500, and the service serves again once PostgreSQL is back, without a restart.
 */
describe('PostgreSQL shutting down under load', () => {
  let dir: string;
  let cluster: EmbeddedDatabase;
  let t: TestApp;
  let auths: string[];
  let phase: Phase = 'serving';

  const startCluster = (port?: number) => startEmbeddedPostgres({ clusterDir: path.join(dir, 'cluster'), databaseName: 'briefing', port });

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'briefing-db-shutdown-'));
    fs.chmodSync(dir, 0o755);
    cluster = await startCluster();
    t = await startTestApp({
      database: { url: cluster.url, drop: async () => undefined },
      rateLimits: RELAXED_RATE_LIMITS,
      // The leadership session pings every 250 ms: it is mid-ping when the server goes.
      env: { LEADER_TAKEOVER_MS: '1000' },
    });
    const users = await createUsers(t.dataSource, CLIENTS);
    for (const userId of users) {
      await t.dataSource.query('INSERT INTO watch_stocks (user_id, corp_code, corp_name) VALUES ($1, $2, $3)', [
        userId,
        WATCHED,
        '삼성전자',
      ]);
    }
    auths = users.map((userId) => bearerFor(t, userId));
  }, 120_000);

  afterAll(async () => {
    await t?.close().catch(() => undefined);
    await cluster?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  /** Each client's writes in turn; every one runs in a transaction of more than one statement. */
  function nextCall(client: number, round: number): { call: string; send: () => request.Test } {
    const auth = auths[client];
    switch (round % 4) {
      case 0:
        return {
          call: 'PUT /push/preferences (a window)',
          send: () =>
            request(t.http).put('/api/v1/push/preferences').set('Authorization', auth).send({ quiet_start: '22:00', quiet_end: '07:00' }),
        };
      case 1:
        return {
          call: 'POST /watchlist',
          send: () => request(t.http).post('/api/v1/watchlist').set('Authorization', auth).send({ corp_code: WATCHED }),
        };
      case 2:
        return {
          call: 'PUT /push/preferences (none)',
          send: () =>
            request(t.http).put('/api/v1/push/preferences').set('Authorization', auth).send({ quiet_start: null, quiet_end: null }),
        };
      default:
        return {
          call: 'PATCH /watchlist/:corpCode/notify',
          send: () =>
            request(t.http)
              .patch(`/api/v1/watchlist/${WATCHED}/notify`)
              .set('Authorization', auth)
              .send({ notify_enabled: round % 8 === 3 }),
        };
    }
  }

  /** Every client sends its next write as soon as the last one is answered, until `stop`. */
  function startLoad(): { answers: Answer[]; stop(): Promise<void> } {
    const answers: Answer[] = [];
    const dispatcher = t.app.get(PushDispatcher);
    let running = true;
    const clients = Array.from({ length: CLIENTS }, async (_, client) => {
      for (let round = 0; running; round++) {
        const { call, send } = nextCall(client, round);
        const sentIn = phase;
        // Client 0 also sets off a pass of the push dispatcher (digests, fan-outs, expired leases) with each write.
        if (client === 0) dispatcher.wake();
        const res = await send();
        answers.push({
          client,
          call,
          sentIn,
          answeredIn: phase,
          status: res.status,
          code: (res.body as { code?: string }).code,
          retryAfter: res.headers['retry-after'] as string | undefined,
        });
      }
    });
    return {
      answers,
      stop: async () => {
        running = false;
        await Promise.all(clients);
        await dispatcher.drain();
      },
    };
  }

  /** Resolves once every client has `count` answers sent and answered in `inPhase` that pass `test`. */
  const everyClient = (answers: Answer[], inPhase: Phase, test: (answer: Answer) => boolean, count: number) =>
    eventually(() => {
      const seen = new Array<number>(CLIENTS).fill(0);
      for (const answer of answers)
        if (answer.sentIn === inPhase && answer.answeredIn === inPhase && test(answer)) seen[answer.client] += 1;
      return seen.every((n) => n >= count);
    }, 60_000);

  const stops = {
    /** `pg_ctl stop -m fast`: every session gets FATAL 57P01 (administrator command), open transactions roll back. */
    fast: () => cluster.stop(),
    /** Immediate mode (the postmaster's SIGQUIT): every process quits at once, recovery runs at the next start. */
    immediate: async () => {
      const postmaster = Number(fs.readFileSync(path.join(cluster.clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(postmaster, 'SIGQUIT');
      await eventually(() => !isRunning(postmaster), 30_000);
    },
  };

  it.each(['fast', 'immediate'] as const)(
    '%s mode: the process keeps serving, 503 with Retry-After meanwhile (never 500), then 2xx again',
    async (mode) => {
      phase = 'serving';
      const load = startLoad();
      try {
        await everyClient(load.answers, 'serving', served, 2);

        phase = 'stopping';
        const port = cluster.port;
        await stops[mode]();
        phase = 'stopped';
        await everyClient(load.answers, 'stopped', () => true, 3);
        // The process itself is alive and says the database is not ready.
        await request(t.http).get('/health').expect(200);
        const ready = await request(t.http).get('/health/ready');
        expect([ready.status, ready.body.code]).toEqual([503, 'DATABASE_UNAVAILABLE']);

        phase = 'restarting';
        cluster = await startCluster(port);
        phase = 'restarted';
        await eventually(async () => (await request(t.http).get('/health/ready')).status === 200, 60_000);
        await everyClient(load.answers, 'restarted', served, 2);
      } finally {
        await load.stop();
      }

      const answers = load.answers;
      // Whenever sent, an answer is the write done or the database unavailable: never a 500, never another code.
      expect(answers.filter((answer) => !served(answer) && !unavailable(answer))).toEqual([]);
      // Sent and answered while PostgreSQL was down: every one 503.
      const duringOutage = answers.filter((answer) => answer.sentIn === 'stopped' && answer.answeredIn === 'stopped');
      expect(duringOutage.length).toBeGreaterThanOrEqual(CLIENTS * 3);
      expect(duringOutage.filter((answer) => !unavailable(answer))).toEqual([]);
    },
    180_000,
  );
});
