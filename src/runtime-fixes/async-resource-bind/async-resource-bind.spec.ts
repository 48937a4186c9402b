import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { InterceptorsConsumer } from '@nestjs/core/interceptors/interceptors-consumer';
import { lastValueFrom, type Observable } from 'rxjs';
import { installLeanAsyncResourceBind, nodeAsyncResourceBind, nodeBindAddsAsyncResource } from './async-resource-bind';

const nodeMajor = Number(process.versions.node.split('.')[0]);

describe('installLeanAsyncResourceBind', () => {
  const storage = new AsyncLocalStorage<string>();
  beforeAll(() => installLeanAsyncResourceBind());

  // Checked on Node 24.21.0 (accessor) and 26.10.0 (none). A failure on a major before 26 means that
  // Node no longer adds the accessor: the fix is no longer needed there; measure again and remove it.
  it('is needed where Node’s own bind adds the deprecated asyncResource accessor (before Node 26), and only there', () => {
    expect({ node: process.version, addsAccessor: nodeBindAddsAsyncResource() }).toEqual({
      node: process.version,
      addsAccessor: nodeMajor < 26,
    });
    if (nodeBindAddsAsyncResource()) {
      expect(AsyncResource.prototype.bind).not.toBe(nodeAsyncResourceBind());
    } else {
      // Not needed: Node's own bind stays in place.
      expect(AsyncResource.prototype.bind).toBe(nodeAsyncResourceBind());
    }
  });

  it('is needed while Nest binds each interception with AsyncResource.bind (@nestjs/core InterceptorsConsumer)', async () => {
    const bindSpy = jest.spyOn(AsyncResource, 'bind');
    try {
      const passThrough: NestInterceptor = { intercept: (_context: ExecutionContext, next: CallHandler) => next.handle() };
      const consumer = new InterceptorsConsumer();
      const answer = (await consumer.intercept(
        [passThrough],
        [],
        {},
        () => undefined,
        () => Promise.resolve('handled'),
      )) as Observable<string>;
      await expect(lastValueFrom(answer)).resolves.toBe('handled');
      expect(bindSpy).toHaveBeenCalled();
    } finally {
      bindSpy.mockRestore();
    }
  });

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
