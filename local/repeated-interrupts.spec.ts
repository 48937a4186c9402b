import { EventEmitter } from 'node:events';
import { handleRepeatedInterrupts, NPM_ECHO_MS } from './repeated-interrupts';

/** A process double whose signals the test raises, a clock it moves, and what the handler did. */
function setUp(underNpm: boolean) {
  const signals = new EventEmitter();
  let nowMs = 1_000_000;
  let finishStop: () => void = () => undefined;
  const calls: string[] = [];
  const remove = handleRepeatedInterrupts({
    stopNow: () => {
      calls.push('stopNow');
      return new Promise<void>((resolve) => (finishStop = resolve));
    },
    log: { warn: (line) => calls.push(`warn: ${line}`) },
    underNpm,
    exitBy: (signal) => calls.push(`exitBy ${signal}`),
    signals: signals as unknown as Pick<NodeJS.Process, 'on' | 'off'>,
    now: () => nowMs,
  });
  return {
    calls,
    remove,
    raise: (signal: 'SIGINT' | 'SIGTERM', afterMs = 1_000) => {
      nowMs += afterMs;
      signals.emit(signal, signal);
    },
    finishStop: () => finishStop(),
    listeners: () => signals.listenerCount('SIGINT') + signals.listenerCount('SIGTERM'),
  };
}

/** Lets the handler's promise chain run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('handleRepeatedInterrupts', () => {
  it('leaves the first signal to the service, which shuts down in order', async () => {
    const { calls, raise } = setUp(false);
    raise('SIGINT');
    await settle();
    expect(calls).toEqual([]);
  });

  it('on the second, stops PostgreSQL immediately and only then exits by that signal', async () => {
    const { calls, raise, finishStop } = setUp(false);
    raise('SIGINT');
    raise('SIGINT');
    await settle();
    expect(calls).toEqual([expect.stringMatching(/^warn: SIGINT again: stopping the embedded PostgreSQL immediately/), 'stopNow']);

    finishStop();
    await settle();
    expect(calls.at(-1)).toBe('exitBy SIGINT');
  });

  it('exits at once on the third, while the immediate stop still runs', async () => {
    const { calls, raise } = setUp(false);
    raise('SIGINT');
    raise('SIGINT');
    raise('SIGINT');
    await settle();
    expect(calls.slice(1)).toEqual(['stopNow', 'exitBy SIGINT']);
  });

  it('counts SIGTERM like SIGINT (a service manager asking twice)', async () => {
    const { calls, raise } = setUp(false);
    raise('SIGTERM');
    raise('SIGINT');
    await settle();
    expect(calls).toContain('stopNow');
  });

  it('still exits when the immediate stop fails, saying so', async () => {
    const signals = new EventEmitter();
    const calls: string[] = [];
    handleRepeatedInterrupts({
      stopNow: () => Promise.reject(new Error('pg_ctl failed')),
      log: { warn: (line) => calls.push(line) },
      underNpm: false,
      exitBy: (signal) => calls.push(`exitBy ${signal}`),
      signals: signals as unknown as Pick<NodeJS.Process, 'on' | 'off'>,
    });
    signals.emit('SIGINT', 'SIGINT');
    signals.emit('SIGINT', 'SIGINT');
    await settle();
    expect(calls.slice(1)).toEqual(['the embedded PostgreSQL did not stop: pg_ctl failed', 'exitBy SIGINT']);
  });

  describe('under npm, which forwards the Ctrl-C the process also gets from the terminal', () => {
    it('counts the echo of a press as that press', async () => {
      const { calls, raise } = setUp(true);
      raise('SIGINT');
      raise('SIGINT', 1);
      await settle();
      expect(calls).toEqual([]);
    });

    it('counts the next press, with its echo, as the second', async () => {
      const { calls, raise } = setUp(true);
      raise('SIGINT');
      raise('SIGINT', 1);
      raise('SIGINT', NPM_ECHO_MS + 50);
      raise('SIGINT', 2);
      await settle();
      expect(calls.filter((call) => call === 'stopNow')).toHaveLength(1);
      expect(calls).not.toContain('exitBy SIGINT');
    });
  });

  it('removes its listeners when asked', () => {
    const { remove, listeners } = setUp(false);
    expect(listeners()).toBe(2);
    remove();
    expect(listeners()).toBe(0);
  });
});
