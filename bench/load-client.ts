import { ChildRpc } from './child-rpc';
import type { LoadJob, LoadResult } from './load-protocol';

/** The load generator: a second Node.js process, so it never competes with the server for an event loop. */
export type LoadClient = ChildRpc<LoadJob, LoadResult>;

export function startLoadClient(): LoadClient {
  return ChildRpc.fork<LoadJob, LoadResult>('load generator', 'load-worker.js');
}
