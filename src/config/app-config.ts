import type { EnvironmentConfig } from './environment';

/**
 * The one configuration object `ConfigModule` provides (`InjectConfig`). config/ knows no
 * feature: the application completes this interface with every feature's slice
 * (src/app-config.ts). A feature injects only the slices it reads
 * (`@InjectConfig() config: PushConfig`), so its dependencies show in its imports;
 * eslint.config.mjs names the files that still take the whole object.
 */
// Completed by declaration merging in src/app-config.ts.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface AppConfig extends EnvironmentConfig {}
