import { type ChildProcess, fork } from 'node:child_process';
import * as path from 'node:path';
import { stopChild } from './harness';
import type { LoadJob, LoadResult, WorkerMessage } from './load-protocol';

/** The parent's handle on the load-generator process. */
export class LoadClient {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (result: LoadResult) => void; reject: (error: Error) => void }>();

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: WorkerMessage) => {
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      if ('error' in message) waiter.reject(new Error(`load generator: ${message.error}`));
      else waiter.resolve(message.result);
    });
    child.on('exit', (code, signal) => {
      for (const waiter of this.pending.values()) waiter.reject(new Error(`the load generator exited (${code ?? signal})`));
      this.pending.clear();
    });
  }

  static start(): LoadClient {
    const child = fork(path.join(__dirname, 'load-worker.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    return new LoadClient(child);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  run(job: Omit<LoadJob, 'id'>): Promise<LoadResult> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.send({ ...job, id }, (error) => {
        if (error) {
          this.pending.delete(id);
          reject(error);
        }
      });
    });
  }

  /** Ends the generator. */
  close(): Promise<void> {
    return stopChild(this.child);
  }
}
