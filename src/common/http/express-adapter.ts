import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express, Response } from 'express';

/**
 * A constructor for `base`'s objects whose prototype is `prototype` from the start (which
 * inherits from `base.prototype`, as Express's request and response objects do). It calls
 * `base` on the new object, as Node's own subclasses of these two do: `Reflect.construct`
 * with a new target made the same objects survive young-generation collections again.
 * Typed as `base` for `createServer`'s options; Node only calls it with `new`.
 */
function constructingWith<C extends new (...args: never[]) => object>(base: C, prototype: InstanceType<C>): C {
  const construct = base as unknown as (this: InstanceType<C>, ...args: ConstructorParameters<C>) => void;
  function Constructed(this: InstanceType<C>, ...args: ConstructorParameters<C>): void {
    construct.apply(this, args);
  }
  Constructed.prototype = prototype;
  return Constructed as unknown as C;
}

/**
 * The Express adapter, with an HTTP server that builds each request and response on
 * Express's own prototypes (`app.request`, `app.response`).
 *
 * Express gives every request and response those prototypes as it takes them
 * (`Object.setPrototypeOf(req, app.request)`). Changing the prototype of an object that
 * already exists makes V8 keep each request's objects through young-generation
 * collections: measured one request at a time, about a third of all that a request
 * allocated was copied and promoted, and each collection stopped the process for 2-15 ms
 * (docs/benchmarks.md, "Uncached reads"). Built with those prototypes already, the call
 * changes nothing, and the collections find almost nothing alive.
 */
export class ServiceExpressAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    // TLS ends at the proxy in front of the service, and it does not ask Nest to track connections.
    if (options.httpsOptions || options.forceCloseConnections) {
      throw new Error('ServiceExpressAdapter serves plain HTTP: httpsOptions and forceCloseConnections are not supported');
    }
    const express = this.getInstance<Express>();
    this.httpServer = createServer(
      {
        IncomingMessage: constructingWith(IncomingMessage, express.request),
        ServerResponse: constructingWith<typeof ServerResponse<IncomingMessage>>(ServerResponse, express.response),
      },
      express,
    );
  }

  /**
   * A Buffer is sent as the bytes it holds, with the Content-Type already set (the HTTP
   * cache's stored answers), where Nest would send its JSON form (`{"type":"Buffer",…}`).
   * Everything else is Nest's reply.
   */
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (!Buffer.isBuffer(body)) return super.reply(response, body, statusCode);
    if (statusCode) response.status(statusCode);
    return response.send(body);
  }
}
