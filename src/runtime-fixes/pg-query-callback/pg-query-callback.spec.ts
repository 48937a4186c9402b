import { Duplex } from 'node:stream';
import { Client, Query } from 'pg';
import { closeSession, queryWithCallbackInPlace, sessionSocketOf } from './pg-query-callback';

/**
 * What was assigned to the `callback` of each pg Query built while `work` runs, in order (the
 * type of each value): the constructor assigns it once; a later assignment is what the fix avoids.
 * No query reaches a server: the client never connects, so pg only queues it.
 */
function callbackAssignments(work: () => void): string[] {
  const assigned: string[] = [];
  const stored = new WeakMap<object, unknown>();
  Object.defineProperty(Query.prototype, 'callback', {
    configurable: true,
    get(this: object) {
      return stored.get(this);
    },
    set(this: object, value: unknown) {
      assigned.push(typeof value);
      stored.set(this, value);
    },
  });
  try {
    work();
  } finally {
    delete (Query.prototype as { callback?: unknown }).callback;
  }
  return assigned;
}

describe('queryWithCallbackInPlace', () => {
  // Checked on pg 8.23.1. A failure means pg's promise form now builds its query with the callback:
  // the fix is no longer needed; measure again (docs/operations.md, "Runtime fixes") and remove it.
  it('is needed while pg’s promise form assigns the query’s callback after building it', () => {
    const client = new Client();
    expect(callbackAssignments(() => void client.query('SELECT $1::int', [1]).catch(() => undefined))).toEqual(['undefined', 'function']);
  });

  it('hands pg’s own query a Query that carries its callback from its constructor on', () => {
    const client = new Client();
    const own = jest.spyOn(Client.prototype, 'query');
    try {
      expect(
        callbackAssignments(
          () => void queryWithCallbackInPlace(client, { name: 'probe', text: 'SELECT 1' }, [], {}).catch(() => undefined),
        ),
      ).toEqual(['function']);
      expect(own).toHaveBeenCalledTimes(1);
      const [submitted] = own.mock.calls[0] as unknown[];
      expect(submitted).toBeInstanceOf(Query);
      expect(submitted).toMatchObject({ name: 'probe', text: 'SELECT 1', values: [] });
    } finally {
      own.mockRestore();
    }
  });

  it('closes a session through pg’s private client.connection.stream, which is still there', () => {
    // A failure here names the private field closeSession reaches: pg moved or renamed it.
    expect({ 'client.connection.stream.destroy': typeof sessionSocketOf(new Client())?.destroy }).toEqual({
      'client.connection.stream.destroy': 'function',
    });
    const socket = new Duplex({ read: () => undefined, write: (_chunk, _encoding, done) => done() });
    const destroy = jest.spyOn(socket, 'destroy');
    const client = new Client({ stream: () => socket });
    const end = jest.spyOn(client, 'end');
    closeSession(client);
    expect(end).toHaveBeenCalledTimes(1);
    expect(destroy).toHaveBeenCalledTimes(1);
  });
});
