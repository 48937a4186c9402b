import { ExpressAdapter } from '@nestjs/platform-express';
import type { Response } from 'express';

/**
 * The service's Express adapter: Nest's, except that it sends a Buffer as the bytes it holds.
 * (Its HTTP server no longer builds requests on Express's prototypes: that runtime fix was
 * dropped on Node 24, docs/operations.md, "Runtime fixes".)
 */
export class ServiceExpressAdapter extends ExpressAdapter {
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
