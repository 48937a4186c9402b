import { type ChildProcess, fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { serviceNodeFlags } from '../harness';
import type { InstanceEvent } from './instance';

/** One life of an instance: from its start to its kill, its own exit, or the end of the run. */
export interface Incarnation {
  index: number;
  /** 1 for the first start of the slot, 2 after its first restart, … */
  life: number;
  pid: number;
  id?: string;
  startedAt: number;
  readyAt?: number;
  endedAt?: number;
  /** How it ended: killed by the soak, exited by itself (with its code or signal), or stopped at the end. */
  end?: { kind: 'killed' } | { kind: 'exited'; code: number | null; signal: string | null } | { kind: 'stopped'; code: number | null };
  /** Transitions of the singleton jobs it holds. */
  held: Array<{ at: number; jobs: string[] }>;
  memory: Array<{ at: number; rss: number; heapUsed: number; heapTotal: number; arrayBuffers: number }>;
}

/**
 * The three instances, each a process of its own on a fixed port (a restarted instance comes
 * back on the same port, as it would behind a load balancer's fixed target list). An instance
 * that exits without being told is a finding; it is restarted, as a supervisor would.
 */
export class Fleet {
  readonly lives: Incarnation[] = [];
  private readonly children = new Map<number, { child: ChildProcess; life: Incarnation }>();
  private stopping = false;

  constructor(
    readonly ports: number[],
    private readonly env: (index: number) => Record<string, string>,
    private readonly logDir: string,
    private readonly log: (line: string) => void,
  ) {}

  /** Starts instance `index` and resolves once it listens (migrations done). */
  start(index: number): Promise<Incarnation> {
    const life: Incarnation = {
      index,
      life: this.lives.filter((each) => each.index === index).length + 1,
      pid: 0,
      startedAt: Date.now(),
      held: [],
      memory: [],
    };
    const out = fs.openSync(path.join(this.logDir, `instance-${index}.log`), 'a');
    fs.writeSync(out, `\n===== instance ${index}, life ${life.life}, ${new Date().toISOString()} =====\n`);
    const child = fork(path.join(__dirname, 'instance.js'), [], {
      stdio: ['ignore', out, out, 'ipc'],
      execArgv: serviceNodeFlags(),
      env: { ...process.env, ...this.env(index), PORT: String(this.ports[index]), SOAK_INSTANCE_INDEX: String(index) },
    });
    fs.closeSync(out);
    life.pid = child.pid ?? 0;
    this.lives.push(life);
    this.children.set(index, { child, life });
    return new Promise((resolve, reject) => {
      child.on('message', (event: InstanceEvent) => {
        if (event.kind === 'ready') {
          life.id = event.id;
          life.readyAt = event.at;
          resolve(life);
        } else if (event.kind === 'held') {
          life.held.push({ at: event.at, jobs: event.jobs });
        } else {
          life.memory.push({
            at: event.at,
            rss: event.rss,
            heapUsed: event.heapUsed,
            heapTotal: event.heapTotal,
            arrayBuffers: event.arrayBuffers,
          });
        }
      });
      child.once('exit', (code, signal) => {
        if (life.end === undefined) {
          life.end = this.stopping ? { kind: 'stopped', code } : { kind: 'exited', code, signal };
          life.endedAt = Date.now();
        }
        if (this.children.get(index)?.child === child) this.children.delete(index);
        if (life.readyAt === undefined) return reject(new Error(`instance ${index} exited before it served (${code ?? signal})`));
        if (life.end.kind === 'exited') {
          this.log(`instance ${index} (pid ${life.pid}) EXITED BY ITSELF (${code ?? signal}); restarting it`);
          setTimeout(() => {
            if (!this.stopping)
              this.start(index).catch((error: unknown) => this.log(`restarting instance ${index} failed: ${String(error)}`));
          }, 1_000);
        }
      });
    });
  }

  /** The live incarnation of slot `index`, if any. */
  current(index: number): Incarnation | undefined {
    return this.children.get(index)?.life;
  }

  /** The slot whose live instance holds `job` now, by its own account. */
  holderOf(job: string): number | undefined {
    for (const [index, { life }] of this.children) {
      if (life.held.at(-1)?.jobs.includes(job)) return index;
    }
    return undefined;
  }

  /** kill -9: no shutdown, no lease released, no session closed cleanly. */
  kill(index: number): Incarnation | undefined {
    const entry = this.children.get(index);
    if (!entry) return undefined;
    entry.life.end = { kind: 'killed' };
    entry.life.endedAt = Date.now();
    entry.child.kill('SIGKILL');
    this.children.delete(index);
    return entry.life;
  }

  /** SIGTERM to every live instance (a clean shutdown, as production stops them), then SIGKILL after 30 s. */
  async stopAll(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      [...this.children.values()].map(
        ({ child, life }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
            child.once('exit', () => {
              clearTimeout(timer);
              life.endedAt ??= Date.now();
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
    this.children.clear();
  }

  /** Every pid still running (for the cleanup of a failed run). */
  pids(): number[] {
    return [...this.children.values()].map(({ child }) => child.pid ?? 0).filter((pid) => pid > 0);
  }
}
