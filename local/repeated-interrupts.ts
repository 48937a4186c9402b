/** The signals that ask the launcher to stop: Ctrl-C, and what `kill` and process managers send. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
type StopSignal = (typeof STOP_SIGNALS)[number];

/**
 * Under npm a Ctrl-C can arrive twice within a millisecond: from the terminal, and forwarded by
 * npm, which gets it too, when npm's shell runs node as its own child (bash does; dash stays in
 * between and takes the forwarded one). Signals this close to the previous press are that same
 * press; a person pressing again is slower.
 */
export const NPM_ECHO_MS = 200;

export interface RepeatedInterruptsOptions {
  /** Stops at once what must not outlive the process (the embedded PostgreSQL's immediate shutdown). */
  stopNow: () => Promise<void>;
  log: { warn(line: string): void };
  /** Whether npm launched us (it forwards the terminal's signals: see NPM_ECHO_MS). */
  underNpm: boolean;
  /** Ends the process by the signal it was sent, as the default action would. */
  exitBy: (signal: StopSignal) => void;
  /** The process whose signals are counted; a double in tests. */
  signals?: Pick<NodeJS.Process, 'on' | 'off'>;
  now?: () => number;
}

/**
 * The first SIGINT or SIGTERM is the service's own (src/main.ts shuts down in order: the
 * server, then what the launcher started, the embedded PostgreSQL last). A second one while
 * that runs stops the embedded PostgreSQL immediately, then ends the process; a third ends it
 * at once. Without this, the second signal ended the process and left PostgreSQL running.
 * Returns what removes the listeners.
 */
export function handleRepeatedInterrupts(options: RepeatedInterruptsOptions): () => void {
  const signals = options.signals ?? process;
  const now = options.now ?? Date.now;
  let presses = 0;
  let pressedAt = Number.NEGATIVE_INFINITY;

  const onSignal = (signal: StopSignal) => {
    const at = now();
    if (options.underNpm && at - pressedAt < NPM_ECHO_MS) return;
    pressedAt = at;
    presses += 1;
    if (presses === 2) {
      options.log.warn(`${signal} again: stopping the embedded PostgreSQL immediately, then exiting (once more exits at once)`);
      options
        .stopNow()
        // The prelude's log takes lines; pg_ctl's failures are one line each (EmbeddedPostgresError).
        .catch((failure: unknown) => options.log.warn(`the embedded PostgreSQL did not stop: ${describe(failure)}`))
        .finally(() => options.exitBy(signal));
    } else if (presses > 2) {
      options.exitBy(signal);
    }
  };
  for (const signal of STOP_SIGNALS) signals.on(signal, onSignal);
  return () => {
    for (const signal of STOP_SIGNALS) signals.off(signal, onSignal);
  };
}

/**
 * Ends the process by `signal` with its default action, so that npm and the shell see an
 * interrupted program (npm then exits quietly by the same signal rather than report a failed script).
 */
export function exitBySignal(signal: StopSignal): void {
  for (const name of STOP_SIGNALS) process.removeAllListeners(name);
  process.kill(process.pid, signal);
  // Only when the signal is ignored here (a parent set it so): the exit status a shell gives it.
  process.exit(signal === 'SIGINT' ? 130 : 143);
}

function describe(failure: unknown): string {
  return failure instanceof Error ? failure.message : String(failure);
}
