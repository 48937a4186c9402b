import { Global, Module } from '@nestjs/common';
import { CommonModule } from '../common/common.module';
import { CacheManagerHttpCacheStore } from './cache-manager-http-cache-store';
import { HttpCacheFastLane } from './http-cache-fast-lane';
import { HttpCacheStore } from './http-cache-store';
import { HttpCacheService } from './http-cache.service';

/**
 * The HTTP cache of the public GET routes. Global, so any feature module can put
 * `@HttpCache` on its routes; import it once, in the root module. The interceptor is
 * not registered globally: `@HttpCache` binds it to exactly the routes that opt in.
 *
 * A cached route must answer the same to everyone (the key is the URL, never
 * Authorization), return a JSON-serialisable value (no `@Res()`, no streams; headers
 * the handler sets itself are not replayed) and leave `Cache-Control` to the cache:
 * `public, max-age=<ttl>` for 2xx, `public, max-age=5` for an error answer, unexpected
 * faults included (kept as the exception filter's sanitised body, never a stack trace).
 */
@Global()
@Module({
  imports: [CommonModule],
  providers: [{ provide: HttpCacheStore, useFactory: () => new CacheManagerHttpCacheStore() }, HttpCacheService, HttpCacheFastLane],
  exports: [HttpCacheStore, HttpCacheService, HttpCacheFastLane],
})
export class HttpCacheModule {}
