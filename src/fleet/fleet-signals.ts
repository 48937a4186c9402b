import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { FLEET_SIGNAL_CHANNEL } from './fleet-connection';

/** What a signal asks every instance to do again. */
export const FLEET_TOPICS = ['analysis-scheduler', 'stock-master'] as const;
export type FleetTopic = (typeof FLEET_TOPICS)[number];

/**
 * Tells every instance, this one included, that shared state changed (NOTIFY on the
 * database; each instance LISTENs on its leadership session). A signal only says
 * "read again" or "forget what you cached": the state itself is in the database.
 * Every topic is delivered once after the leadership session reconnects (signals may
 * have been missed meanwhile), and the topics registered with `follow` are also
 * re-read at every heartbeat, so a missed signal costs them at most one heartbeat.
 */
@Injectable()
export class FleetSignals {
  private readonly logger = new Logger(FleetSignals.name);
  private readonly handlers = new Map<FleetTopic, Array<() => void>>();
  private readonly followed = new Set<FleetTopic>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  on(topic: FleetTopic, handler: () => void): void {
    this.handlers.set(topic, [...(this.handlers.get(topic) ?? []), handler]);
  }

  /** `on`, and also at every heartbeat: for state that a handler re-reads from the database. */
  follow(topic: FleetTopic, reread: () => void): void {
    this.on(topic, reread);
    this.followed.add(topic);
  }

  async publish(topic: FleetTopic): Promise<void> {
    await this.dataSource.query('SELECT pg_notify($1, $2)', [FLEET_SIGNAL_CHANNEL, topic]);
  }

  /** A signal arrived on the leadership session. */
  deliver(topic: string): void {
    for (const handler of this.handlers.get(topic as FleetTopic) ?? []) {
      try {
        handler();
      } catch (error) {
        this.logger.error({ err: error }, `handling the fleet signal ${topic} failed`);
      }
    }
  }

  /** After the leadership session reconnects: anything may have changed meanwhile. */
  deliverAll(): void {
    for (const topic of this.handlers.keys()) this.deliver(topic);
  }

  /** At every heartbeat: the followed topics re-read their state. */
  deliverFollowed(): void {
    for (const topic of this.followed) this.deliver(topic);
  }
}
