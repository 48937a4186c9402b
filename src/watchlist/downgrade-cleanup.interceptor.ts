import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { from, type Observable, switchMap } from 'rxjs';
import type { AuthenticatedUser } from '../auth/jwt.strategy';
import { DowngradeCleanupService } from './downgrade-cleanup.service';

/**
 * Settles the caller's due downgrade cleanup before the route answers, so a watchlist
 * read never shows entries (or a capacity) the daily job has yet to settle.
 * Applied with `@UseInterceptors` on each route it serves; an interceptor runs after
 * the JWT guard, so the user is known.
 */
@Injectable()
export class DowngradeCleanupInterceptor implements NestInterceptor {
  constructor(private readonly cleanup: DowngradeCleanupService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const user = context.switchToHttp().getRequest<{ user?: AuthenticatedUser }>().user;
    if (!user) return next.handle();
    return from(this.cleanup.settle(user.userId)).pipe(switchMap(() => next.handle()));
  }
}
