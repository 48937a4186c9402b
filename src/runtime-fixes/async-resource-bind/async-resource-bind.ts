/*
 * Runtime fix: AsyncResource.prototype.bind without the deprecated `asyncResource` accessor.
 *
 * Works around: Node's `AsyncResource.prototype.bind` gives every function it returns a deprecated
 * `asyncResource` accessor (DEP0172), built from two `util.deprecate` wrappers. @nestjs/core binds
 * twice for each request that passes an interceptor (`InterceptorsConsumer.intercept`; the HTTP
 * cache's, on every public read), and each bound function then kept that request's objects through
 * young-generation collections.
 * Checked against: Node.js 24.21.0 (adds the accessor: the fix applies) and 26.10.0 (no accessor:
 * the fix leaves Node's bind alone); @nestjs/core 11.2.10.
 * Measured: docs/operations.md, "Runtime fixes". The spec fails when Node stops adding the accessor
 * on a major where it applies (the fix is then no longer needed) and when the replacement no longer
 * reaches Nest's calls.
 */
import { AsyncResource } from 'node:async_hooks';

type AnyFunction = (...args: never[]) => unknown;
type Bind = <Func extends AnyFunction>(this: AsyncResource, fn: Func, thisArg?: unknown) => Func;

/**
 * Where the installation keeps Node's own bind. A registered symbol, since test files each load
 * this module in a realm of their own while `AsyncResource.prototype` is the process's.
 */
const NODE_BIND = Symbol.for('disclosure-briefing.runtime-fixes.node-async-resource-bind');
type WithNodeBind = typeof AsyncResource & { [NODE_BIND]?: Bind };

/** Node's own `AsyncResource.prototype.bind`, whether or not the fix replaced it. */
export function nodeAsyncResourceBind(): Bind {
  return (AsyncResource as WithNodeBind)[NODE_BIND] ?? (AsyncResource.prototype.bind as Bind);
}

/** Whether Node's own `bind` adds the deprecated `asyncResource` accessor (DEP0172) to the functions it returns. */
export function nodeBindAddsAsyncResource(): boolean {
  const probe = nodeAsyncResourceBind().call(new AsyncResource('probe'), () => undefined);
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
 * collector, on a Node whose `bind` still adds the deprecated accessor; elsewhere it changes
 * nothing. Process-wide and idempotent; `configureApp` calls it.
 *
 * Node 20 built the accessor with `util.deprecate`, which also made a fresh function the prototype
 * of another (docs/benchmarks-history.md, "Uncached reads"). Node 24 dropped that prototype change
 * (nodejs/node#59195, #59518) but still adds the accessor, and the bound functions still kept
 * their requests' objects alive (docs/operations.md, "Runtime fixes"). Node 26 no longer adds it
 * (nodejs/node#58618).
 */
export function installLeanAsyncResourceBind(): void {
  if (!nodeBindAddsAsyncResource()) return;
  const withNodeBind = AsyncResource as WithNodeBind;
  withNodeBind[NODE_BIND] ??= AsyncResource.prototype.bind as Bind;
  AsyncResource.prototype.bind = bind;
}
