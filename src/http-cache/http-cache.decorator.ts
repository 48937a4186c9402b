import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { HttpCacheInterceptor } from './http-cache.interceptor';
import { HTTP_CACHE_POLICY, type HttpCachePolicy } from './http-cache-policy';

/**
 * Caches the GET answers of a public route (on a method, or on a controller for all
 * its methods; the method's policy wins). The answer must not depend on who asks:
 * the key is the URL only, never Authorization. Needs `HttpCacheModule` in the app.
 */
export function HttpCache(policy: HttpCachePolicy): ClassDecorator & MethodDecorator {
  if (!Number.isInteger(policy.ttlSeconds) || policy.ttlSeconds < 1) {
    throw new Error(`@HttpCache ttlSeconds must be a positive integer (got ${policy.ttlSeconds})`);
  }
  return applyDecorators(SetMetadata(HTTP_CACHE_POLICY, { ...policy }), UseInterceptors(HttpCacheInterceptor));
}
