/**
 * Every migration's `down()`: the schema only moves forward (the specification's
 * versioning rule). Reverting would drop columns and tables that hold user data, so
 * a change is undone by a new migration instead.
 */
export function refuseDown(migration: string): never {
  throw new Error(`${migration} cannot be reverted: migrations are forward-only; write a new migration that undoes the change`);
}
