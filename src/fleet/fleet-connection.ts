import type { Client, Notification } from 'pg';
import { PostgresClient } from '../database/postgres-client';

/** The channel of the fleet's signals (LISTEN/NOTIFY). */
export const FLEET_SIGNAL_CHANNEL = 'fleet_signals';
/** How the leadership session is named in pg_stat_activity (followed by the instance id). */
export const LEADERSHIP_APPLICATION_NAME = 'briefing-leadership';

export interface FleetConnectionEvents {
  /** A signal published by any instance (this one included). */
  onSignal(topic: string): void;
  /** The session ended or stopped answering: every advisory lock it held is gone. */
  onLost(reason: string): void;
}

/**
 * The one dedicated PostgreSQL session of an instance: it holds the singleton jobs'
 * advisory locks and listens to the fleet's signals. It lives outside the pool on
 * purpose: a session lock belongs to its connection, so it must never be handed to
 * a request.
 *
 * The session asks the server to end it after `idleTimeoutMs` without a query
 * (idle_session_timeout): a frozen or partitioned leader stops pinging, and the
 * server then releases its locks for another instance to take.
 */
export class FleetConnection {
  private client?: Client;
  private lostReported = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly instanceId: string,
    private readonly timeouts: { queryMs: number; idleTimeoutMs: number },
    private readonly events: FleetConnectionEvents,
  ) {}

  get isOpen(): boolean {
    return this.client !== undefined;
  }

  async open(): Promise<void> {
    const client = new PostgresClient({
      connectionString: this.databaseUrl,
      application_name: `${LEADERSHIP_APPLICATION_NAME} ${this.instanceId}`.slice(0, 63),
      connectionTimeoutMillis: this.timeouts.queryMs,
      // A query that does not answer in time means the session is gone for our purposes.
      readTimeoutMs: this.timeouts.queryMs,
      keepAlive: true,
    });
    client.on('error', (error) => this.lose(client, `connection error: ${error.message}`));
    client.on('end', () => this.lose(client, 'connection closed'));
    client.on('notification', (message: Notification) => {
      if (message.channel === FLEET_SIGNAL_CHANNEL && message.payload) this.events.onSignal(message.payload);
    });
    try {
      await client.connect();
      await client.query(`SET idle_session_timeout = ${Math.round(this.timeouts.idleTimeoutMs)}`);
      await client.query(`LISTEN ${FLEET_SIGNAL_CHANNEL}`);
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      throw error;
    }
    this.client = client;
    this.lostReported = false;
  }

  /** Tries to take each lock; returns the keys now held. Also proves the session alive. */
  async tryLocks(namespace: number, keys: number[]): Promise<number[]> {
    const rows = await this.query<{ key: number; taken: boolean }>(
      'SELECT key, pg_try_advisory_lock($1::int, key) AS taken FROM unnest($2::int[]) AS key',
      [namespace, keys],
    );
    return rows.filter((row) => row.taken).map((row) => row.key);
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1', []);
  }

  /** Ends the session cleanly: the server drops its locks and its LISTEN. */
  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    client.removeAllListeners('end');
    await client.end().catch(() => undefined);
  }

  private async query<Row>(sql: string, params: unknown[]): Promise<Row[]> {
    const client = this.client;
    if (!client) throw new Error('the leadership session is not open');
    try {
      return (await client.query(sql, params)).rows as Row[];
    } catch (error) {
      this.lose(client, `query failed: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    }
  }

  private lose(client: Client, reason: string): void {
    if (this.client !== client || this.lostReported) return;
    this.lostReported = true;
    this.client = undefined;
    client.removeAllListeners('end');
    // Whatever state the socket is in, it no longer speaks for us.
    void client.end().catch(() => undefined);
    this.events.onLost(reason);
  }
}
