/**
 * SQL true when the instance named by `ownerColumn` is known to be dead: its row in
 * fleet_instances is still there but has not beaten for `windowMsParam` milliseconds
 * (LEADER_TAKEOVER_MS, the same wait as for its singleton jobs). A queue's lease owner is
 * the instance's id (InstanceIdentity.id), so the leases of an instance killed with
 * kill -9 are taken over as soon as its leadership is, not when each lease runs out
 * (10 minutes for an analysis).
 *
 * A clean shutdown deletes the row: its leftover leases wait for their expiry as before,
 * since they may still be finishing. Only an instance whose own heartbeats have gone on
 * without a gap for the window judges (FleetInstancesRepository.judgesOthersDead): after a
 * database outage every heartbeat is old, and the instances that have not beaten again yet
 * are not dead.
 */
export function leaseOwnerIsDead(ownerColumn: string, windowMsParam: string): string {
  return `EXISTS (SELECT 1 FROM fleet_instances f WHERE f.id = ${ownerColumn}
            AND f.heartbeat_at < now() - ${windowMsParam} * interval '1 millisecond')`;
}
