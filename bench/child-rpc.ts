import { type ChildProcess, fork } from 'node:child_process';
import * as path from 'node:path';
import { stopChild } from './harness';

/**
 * Calls into a helper process of the bench (the load generator, the server under test) over
 * its IPC channel: each request carries an id, and the reply with the same id settles it.
 */
type Envelope<Request> = { id: number; request: Request };
type Reply<Response> = { id: number; response: Response } | { id: number; error: string };

export class ChildRpc<Request, Response> {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (response: Response) => void; reject: (error: Error) => void }>();

  private constructor(
    private readonly name: string,
    private readonly child: ChildProcess,
  ) {
    child.on('message', (reply: Reply<Response>) => {
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      if ('error' in reply) waiter.reject(new Error(`${name}: ${reply.error}`));
      else waiter.resolve(reply.response);
    });
    child.on('exit', (code, signal) => {
      for (const waiter of this.pending.values()) waiter.reject(new Error(`the ${name} exited (${code ?? signal})`));
      this.pending.clear();
    });
  }

  /** Forks `script` (a file next to this one, compiled) with its own Node.js options, and environment (default: this process's). */
  static fork<Request, Response>(name: string, script: string, execArgv: string[] = [], env = process.env): ChildRpc<Request, Response> {
    const child = fork(path.join(__dirname, script), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv, env });
    return new ChildRpc(name, child);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  call(request: Request): Promise<Response> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.send({ id, request } satisfies Envelope<Request>, (error) => {
        if (error) {
          this.pending.delete(id);
          reject(error);
        }
      });
    });
  }

  close(): Promise<void> {
    return stopChild(this.child);
  }
}

/** The child's side: answers every request with `handle`'s result; the parent going away ends the process, after `beforeExit`. */
export function serveRpc<Request, Response>(handle: (request: Request) => Promise<Response>, beforeExit?: () => Promise<void>): void {
  process.on('message', ({ id, request }: Envelope<Request>) => {
    handle(request).then(
      (response) => process.send?.({ id, response } satisfies Reply<Response>),
      (error: unknown) =>
        process.send?.({ id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies Reply<Response>),
    );
  });
  process.once('disconnect', () => {
    void (beforeExit?.() ?? Promise.resolve()).finally(() => process.exit(0));
  });
}
