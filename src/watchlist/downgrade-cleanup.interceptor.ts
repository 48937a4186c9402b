import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { from, type Observable, switchMap } from 'rxjs';
import type { AuthenticatedUser } from '../auth/jwt.strategy';
import { WatchlistController } from '../watchlist/watchlist.controller';
import { DowngradeCleanupService } from './downgrade-cleanup.service';

/** The watchlist reads that settle a due downgrade cleanup before answering. */
const SETTLING_HANDLERS = new Set<string>(['list', 'capacity']);

/**
 * Runs the caller's downgrade cleanup before GET /api/v1/watchlist and its capacity,
 * so a read never shows entries (or a capacity) the daily job has yet to settle.
 * An interceptor runs after the JWT guard, so the user is known.
 */
@Injectable()
export class WatchlistReadInterceptor implements NestInterceptor {
  constructor(private readonly cleanup: DowngradeCleanupService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http' || context.getClass() !== WatchlistController) return next.handle();
    if (!SETTLING_HANDLERS.has(context.getHandler().name)) return next.handle();
    const user = context.switchToHttp().getRequest<{ user?: AuthenticatedUser }>().user;
    if (!user) return next.handle();
    return from(this.cleanup.settle(user.userId)).pipe(switchMap(() => next.handle()));
  }
}
