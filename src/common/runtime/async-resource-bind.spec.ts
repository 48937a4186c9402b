import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { installLeanAsyncResourceBind } from './async-resource-bind';

describe('installLeanAsyncResourceBind', () => {
  const storage = new AsyncLocalStorage<string>();
  beforeAll(() => installLeanAsyncResourceBind());

  it('binds without the deprecated asyncResource accessor, keeping the function’s length', () => {
    const fn = (a: number, b: number) => a + b;
    for (const bound of [AsyncResource.bind(fn), new AsyncResource('probe').bind(fn), AsyncResource.bind(fn, 'probe', {})]) {
      expect(Object.getOwnPropertyDescriptor(bound, 'asyncResource')).toBeUndefined();
      expect(bound.length).toBe(2);
      expect(bound(2, 3)).toBe(5);
    }
  });

  it('runs the bound function in the async context it was bound in, wherever it is called', async () => {
    const bound = storage.run('bound here', () => AsyncResource.bind(() => storage.getStore()));
    expect(storage.run('called here', bound)).toBe('bound here');
    expect(bound()).toBe('bound here');
    // Through a promise, as Nest's interceptors use it (rxjs defer).
    const later = storage.run('bound later', () => AsyncResource.bind(async () => storage.getStore()));
    await expect(storage.run('elsewhere', later)).resolves.toBe('bound later');
  });

  it('passes the caller’s this, or the given thisArg, and the arguments', () => {
    function whoAndWhat(this: unknown, ...args: unknown[]) {
      return { self: this, args };
    }
    const target = { name: 'caller' };
    const unbound = { call: AsyncResource.bind(whoAndWhat) };
    expect(unbound.call.call(target, 1, 'two')).toEqual({ self: target, args: [1, 'two'] });
    const fixed = { name: 'fixed' };
    const pinned = AsyncResource.bind(whoAndWhat, 'probe', fixed);
    expect(pinned.call(target, 3)).toEqual({ self: fixed, args: [3] });
  });

  // The installation is process-wide: another test file's may already be in place, from another realm.
  it('throws for a non-function and can be installed twice', () => {
    const installed = AsyncResource.prototype.bind;
    installLeanAsyncResourceBind();
    expect(AsyncResource.prototype.bind).toBe(installed);
    expect(() => new AsyncResource('probe').bind(42 as unknown as () => void)).toThrow(/must be of type function/);
  });
});
