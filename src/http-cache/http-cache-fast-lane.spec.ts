import { Injectable, Module, type CanActivate, type NestInterceptor } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR, ModulesContainer } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { enhancersTheFastLaneWouldSkip } from './http-cache-fast-lane';

@Injectable()
class AllowAll implements CanActivate {
  canActivate(): boolean {
    return true;
  }
}

@Injectable()
class PassThrough implements NestInterceptor {
  intercept(_context: unknown, next: { handle(): unknown }) {
    return next.handle() as never;
  }
}

@Module({ providers: [{ provide: APP_GUARD, useClass: AllowAll }] })
class GuardedFeature {}

async function enhancersOf(module: { imports?: unknown[]; providers?: unknown[] }): Promise<string[]> {
  const ref = await Test.createTestingModule(module as never).compile();
  try {
    return enhancersTheFastLaneWouldSkip(ref.get(ModulesContainer));
  } finally {
    await ref.close();
  }
}

describe('enhancersTheFastLaneWouldSkip', () => {
  it('finds a global guard of a feature module and a global interceptor, wherever they are declared', async () => {
    const found = await enhancersOf({ imports: [GuardedFeature], providers: [{ provide: APP_INTERCEPTOR, useClass: PassThrough }] });
    expect(found.sort()).toEqual(['APP_GUARD in GuardedFeature', expect.stringMatching(/^APP_INTERCEPTOR in /)].sort());
  });

  it('finds nothing when guards and interceptors are applied to routes only', async () => {
    expect(await enhancersOf({ providers: [AllowAll, PassThrough] })).toEqual([]);
  });
});
