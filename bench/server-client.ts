import type { CapturedQuery } from './app';
import { ChildRpc } from './child-rpc';
import { serviceNodeFlags } from './harness';
import type { MemorySample, RequestSplit, ServerRequest, ServerResponses } from './server-protocol';

/** The bench's handle on the server under test, which runs in a process of its own (server-process.ts). */
export class BenchServer {
  private constructor(
    private readonly rpc: ChildRpc<ServerRequest, unknown>,
    readonly origin: string,
    readonly adminKey: string,
  ) {}

  /**
   * Forks the server process, with production's Node.js flags and --expose-gc (for live-heap
   * samples), and starts the application in it: migrations, then listen. `extraNodeFlags` come
   * after those (`npm run bench:runtime-fixes` preloads its switches with `-r`); `extraEnv` is
   * added to this process's environment (the traced server's OTLP endpoint).
   */
  static async start(
    options: { databaseUrl: string; dartBaseUrl: string; dartApiKey: string },
    extraNodeFlags: string[] = [],
    extraEnv: Record<string, string> = {},
  ): Promise<BenchServer> {
    const rpc = ChildRpc.fork<ServerRequest, unknown>(
      'server under test',
      'server-process.js',
      [...serviceNodeFlags(), '--expose-gc', ...extraNodeFlags],
      { ...process.env, ...extraEnv },
    );
    try {
      const { origin, adminKey } = (await rpc.call({ kind: 'start', ...options })) as ServerResponses['start'];
      return new BenchServer(rpc, origin, adminKey);
    } catch (error) {
      await rpc.close();
      throw error;
    }
  }

  get pid(): number | undefined {
    return this.rpc.pid;
  }

  private async ask<K extends ServerRequest['kind']>(request: Extract<ServerRequest, { kind: K }>): Promise<ServerResponses[K]> {
    return (await this.rpc.call(request)) as ServerResponses[K];
  }

  /** SQL statements the services have sent so far. */
  queries(): Promise<number> {
    return this.ask({ kind: 'queries' });
  }

  /** The statements sent while `work` runs. */
  capture(work: () => Promise<void>): Promise<CapturedQuery[]> {
    return this.around({ kind: 'capture-start' }, { kind: 'capture-stop' }, work);
  }

  /** Per-request server time and SQL time of the requests answered while `work` runs. */
  split(work: () => Promise<void>): Promise<RequestSplit[]> {
    return this.around({ kind: 'split-start' }, { kind: 'split-stop' }, work);
  }

  /** Starts a recording, runs `work`, and stops the recording whatever `work` did, so that none is left running. */
  private async around<K extends 'capture-stop' | 'split-stop'>(
    start: ServerRequest,
    stop: Extract<ServerRequest, { kind: K }>,
    work: () => Promise<void>,
  ): Promise<ServerResponses[K]> {
    await this.rpc.call(start);
    const outcome = await work().then(
      () => null,
      (error: unknown) => ({ error }),
    );
    const recorded = await this.ask(stop);
    if (outcome) throw outcome.error;
    return recorded;
  }

  serialiseMs(body: string): Promise<number> {
    return this.ask({ kind: 'serialise', body });
  }

  memory(collect: boolean): Promise<MemorySample> {
    return this.ask({ kind: 'memory', collect });
  }

  async clearHttpCache(): Promise<void> {
    await this.ask({ kind: 'clear-http-cache' });
  }

  /** Closes the application (its pool, its timers) and ends the process. */
  close(): Promise<void> {
    return this.rpc.close();
  }
}
