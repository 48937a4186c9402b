import { Duplex } from 'node:stream';
import { Logger } from '@nestjs/common';
import { Pool, type PoolConfig } from 'pg';
import { isDatabaseUnavailable } from './database-errors';
import { PostgresClient } from './postgres-client';

/** One backend message: its type byte, its length (itself included) and its body. */
function message(type: string, body: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([Buffer.from(type), length, body]);
}

const AUTHENTICATION_OK = message('R', Buffer.from([0, 0, 0, 0]));
const READY_FOR_QUERY = message('Z', Buffer.from('I'));
/** What PostgreSQL sends every session when it is stopped in fast mode (`pg_ctl stop -m fast`). */
const ADMIN_SHUTDOWN = message(
  'E',
  Buffer.from(['SFATAL', 'VFATAL', 'C57P01', 'Mterminating connection due to administrator command', ''].join('\0') + '\0'),
);

/**
 * The socket of a session with a pretend server: it answers the startup message with
 * `onStartup`, in one read, and sends `later` when told. A throw out of the client's
 * handling of a read (an 'error' nobody listens to) is kept in `thrown`, where a real
 * socket would make it an uncaught exception.
 */
class ServerSocket extends Duplex {
  thrown: unknown[] = [];
  private started = false;

  constructor(private readonly onStartup: Buffer) {
    super();
  }

  connect(): this {
    process.nextTick(() => this.emit('connect'));
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  /** Sends `bytes` as one read, then closes when `close` (the server ends the session after a FATAL). */
  send(bytes: Buffer, close: boolean): void {
    try {
      this.push(bytes);
    } catch (error) {
      this.thrown.push(error);
    }
    if (close) this.push(null);
  }

  override _read(): void {}

  override _write(_chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    if (!this.started) {
      this.started = true;
      // A later turn of the event loop, as a socket's read is.
      setImmediate(() => this.send(this.onStartup, this.onStartup.includes(ADMIN_SHUTDOWN)));
    }
    done();
  }

  override _final(done: () => void): void {
    this.push(null);
    done();
  }
}

describe('PostgresClient', () => {
  let sockets: ServerSocket[];
  let pool: Pool;
  let poolErrors: Error[];
  let warnings: jest.SpyInstance;

  function poolOf(onStartup: Buffer): Pool {
    sockets = [];
    poolErrors = [];
    const created = new Pool({
      // As the server's pool has it (data-source-options.ts); pg's types want a Client built without a config.
      Client: PostgresClient as unknown as NonNullable<PoolConfig['Client']>,
      max: 1,
      stream: () => {
        const socket = new ServerSocket(onStartup);
        sockets.push(socket);
        return socket;
      },
    });
    // As TypeORM does (PostgresDriver.createPool).
    created.on('error', (error) => poolErrors.push(error));
    return created;
  }

  const ended = (client: PostgresClient) => new Promise<void>((resolve) => client.once('end', () => resolve()));

  beforeEach(() => {
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });

  afterEach(async () => {
    await pool?.end();
    jest.restoreAllMocks();
  });

  it('survives a FATAL that arrives in the read that completed its connection, before anyone holds it (issue 28, finding 3)', async () => {
    pool = poolOf(Buffer.concat([AUTHENTICATION_OK, READY_FOR_QUERY, ADMIN_SHUTDOWN]));

    // pg-pool stops listening when it hands the client over; its taker listens only once its
    // promise continues, after the rest of this read: the FATAL came in between.
    const client = (await pool.connect()) as PostgresClient & { release(error?: Error): void };

    expect(sockets[0].thrown).toEqual([]);
    expect(client.lostWith).toMatchObject({ code: '57P01' });
    expect(warnings).toHaveBeenCalledTimes(1);
    expect(warnings.mock.calls[0][0]).toEqual({ err: client.lostWith });
    // What a request then gets: an error answered 503.
    const refused = await client.query('SELECT 1').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(refused)).toBe(true);
    // Released, it leaves the pool rather than going back to it.
    client.release();
    expect(pool.totalCount).toBe(0);
  });

  it('leaves an idle client’s failure to the pool as before: dropped, and reported on the pool', async () => {
    pool = poolOf(Buffer.concat([AUTHENTICATION_OK, READY_FOR_QUERY]));
    const client = (await pool.connect()) as PostgresClient & { release(error?: Error): void };
    client.release();
    expect(pool.idleCount).toBe(1);

    sockets[0].send(ADMIN_SHUTDOWN, true);

    expect(sockets[0].thrown).toEqual([]);
    expect(pool.totalCount).toBe(0);
    expect(poolErrors).toEqual([expect.objectContaining({ code: '57P01' })]);
    expect(warnings).toHaveBeenCalledTimes(1);
  });

  it('closes a session that failed while held, once; the holder’s own listener still hears the failure', async () => {
    pool = poolOf(Buffer.concat([AUTHENTICATION_OK, READY_FOR_QUERY]));
    const client = (await pool.connect()) as PostgresClient & { release(error?: Error): void };
    const errors: Error[] = [];
    // As TypeORM's query runner listens while it holds a client.
    client.on('error', (error) => errors.push(error));
    const gone = ended(client);

    // The server does not close the socket: the client does.
    sockets[0].send(ADMIN_SHUTDOWN, false);
    await gone;

    expect(errors).toEqual([expect.objectContaining({ code: '57P01' })]);
    expect(warnings).toHaveBeenCalledTimes(1);
    client.release(errors[0]);
    expect(pool.totalCount).toBe(0);
  });
});
