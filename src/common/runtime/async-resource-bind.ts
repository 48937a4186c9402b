import { AsyncResource } from 'node:async_hooks';

type AnyFunction = (...args: never[]) => unknown;

/** Whether this Node's `bind` still adds the deprecated `asyncResource` accessor to the functions it returns. */
function bindAddsAsyncResource(): boolean {
  const probe = new AsyncResource('probe').bind(() => undefined);
  return Object.getOwnPropertyDescriptor(probe, 'asyncResource') !== undefined;
}

/** `fn` bound to `resource`'s async context, as `AsyncResource.prototype.bind` does once DEP0172 is End-of-Life. */
function boundTo(resource: AsyncResource, fn: AnyFunction, thisArg: unknown): AnyFunction {
  if (typeof fn !== 'function') throw new TypeError('The "fn" argument must be of type function');
  const call = fn as unknown as (this: unknown, ...args: unknown[]) => unknown;
  const bound =
    thisArg === undefined
      ? function (this: unknown, ...args: unknown[]) {
          return resource.runInAsyncScope(call, this, ...args);
        }
      : (...args: unknown[]) => resource.runInAsyncScope(call, thisArg, ...args);
  Object.defineProperty(bound, 'length', { configurable: true, enumerable: false, writable: false, value: fn.length });
  return bound;
}

function bind<Func extends AnyFunction>(this: AsyncResource, fn: Func, thisArg?: unknown): Func {
  return boundTo(this, fn, thisArg) as Func;
}

/**
 * Makes `AsyncResource.bind` (and the static form, which calls it) cheap for the young-generation
 * collector. Process-wide and idempotent; `configureApp` calls it.
 *
 * On Node 20 every bound function gets a deprecated `asyncResource` accessor (DEP0172) built with
 * `util.deprecate`, which makes a fresh function the prototype of another. Nest binds twice for each
 * request that passes an interceptor (the HTTP cache's, on every public read), and each time V8 then
 * kept that request's objects through young-generation collections: measured one request at a time on
 * the service, about 1 MB more was promoted per collection, and each took a millisecond longer
 * (docs/benchmarks.md, "Uncached reads"). Node itself dropped that prototype change
 * (nodejs/node#59195, #59518) and then the property (#58618); on a Node that no longer adds it, this
 * changes nothing.
 */
export function installLeanAsyncResourceBind(): void {
  if (AsyncResource.prototype.bind === bind || !bindAddsAsyncResource()) return;
  AsyncResource.prototype.bind = bind;
}
