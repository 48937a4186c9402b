import { DynamicModule, Global, Inject, Module } from '@nestjs/common';

export const APP_CONFIG = Symbol('APP_CONFIG');

/**
 * Injects the validated configuration. Type the parameter with the slices the class
 * reads (`@InjectConfig() config: PushConfig`, `config: { dart: DartConfig }`): the
 * object holds every slice (src/app-config.ts composes them).
 */
export const InjectConfig = (): ParameterDecorator => Inject(APP_CONFIG);

@Global()
@Module({})
export class ConfigModule {
  /** The application's configuration (`loadConfig`, src/app-config.ts); a test may give only the slices its modules read. */
  static forRoot(config: object): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: APP_CONFIG, useValue: config }],
      exports: [APP_CONFIG],
    };
  }
}
