import type { MigrationInterface, QueryRunner } from 'typeorm';
import { refuseDown } from './forward-only';

/**
 * The FCM send budget of the whole fleet (FcmSendBudgetRepository): one row, and the
 * function that books a batch's messages in one round trip.
 *
 * The row is a line booked in time (GCRA, the generic cell rate algorithm): `booked_until`
 * is the moment the messages granted so far have used up the rate, and a batch may go once
 * the line, with its own messages added, is no more than the burst ahead of now. The
 * function books the batch and answers how long to wait for that moment, so a grant is one
 * statement however short the budget is, and waiting batches go in the order they asked.
 * `paused_until`: FCM answered QUOTA_EXCEEDED; nobody sends before then.
 *
 * UNLOGGED: no WAL for a row written for every batch; after a crash the table comes back
 * empty, which only gives the fleet one burst again and forgets a pause (the next
 * QUOTA_EXCEEDED sets it again). The row is updated in place (HOT): a low fillfactor keeps
 * room for the new versions on its page.
 */
export class FcmSendBudget1764536000000 implements MigrationInterface {
  name = 'FcmSendBudget1764536000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE UNLOGGED TABLE fcm_send_budget (
         id smallint PRIMARY KEY,
         booked_until timestamptz NOT NULL,
         paused_until timestamptz
       ) WITH (fillfactor = 20)`,
    );
    // p_now: the caller's clock (tests on virtual time); NULL: the database's, one clock for the fleet.
    // Read after the row lock, so grants are booked in the order they are made.
    // wait_ms: granted, how long until the batch may go; refused, how long until asking again makes sense.
    await queryRunner.query(`
      CREATE FUNCTION fcm_send_budget_take(
        p_messages integer, p_ms_per_message double precision, p_burst_ms double precision,
        p_max_wait_ms double precision, p_now timestamptz)
      RETURNS TABLE (granted boolean, wait_ms integer, paused boolean)
      LANGUAGE plpgsql AS $$
      DECLARE
        v_booked timestamptz;
        v_paused timestamptz;
        v_now timestamptz;
        v_until timestamptz;
        v_wait double precision;
      BEGIN
        SELECT b.booked_until, b.paused_until INTO v_booked, v_paused FROM fcm_send_budget b WHERE b.id = 1 FOR UPDATE;
        IF NOT FOUND THEN
          INSERT INTO fcm_send_budget (id, booked_until) VALUES (1, '-infinity') ON CONFLICT (id) DO NOTHING;
          SELECT b.booked_until, b.paused_until INTO v_booked, v_paused FROM fcm_send_budget b WHERE b.id = 1 FOR UPDATE;
        END IF;
        v_now := coalesce(p_now, clock_timestamp());
        IF v_paused > v_now THEN
          RETURN QUERY SELECT false, ceil(extract(epoch FROM v_paused - v_now) * 1000)::integer, true;
          RETURN;
        END IF;
        v_until := greatest(v_booked, v_now) + p_messages * p_ms_per_message * interval '1 millisecond';
        v_wait := greatest(0, extract(epoch FROM v_until - v_now) * 1000 - p_burst_ms);
        IF v_wait > p_max_wait_ms THEN
          RETURN QUERY SELECT false, ceil(v_wait - p_max_wait_ms)::integer, false;
          RETURN;
        END IF;
        UPDATE fcm_send_budget SET booked_until = v_until WHERE id = 1;
        RETURN QUERY SELECT true, ceil(v_wait)::integer, false;
      END
      $$`);
  }

  async down(): Promise<void> {
    refuseDown(this.name);
  }
}
