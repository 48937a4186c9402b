/**
 * Waiting in tests: for an outcome, never for a fixed time. A test that needs something to
 * have happened (a row written, a message sent, a session ended) polls for it with `eventually`
 * or awaits the event that says so (a pool's `drain()`, a promise the double resolves); a test
 * of time itself moves a FakeClock (fake-clock.ts).
 */

/** Resolves with `probe`'s first truthy value; fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T> | T, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (performance.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
