import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { OpenAPIObject } from '@nestjs/swagger';
import { AppModule } from './app.module';
import { buildOpenApiDocument } from './common/http/swagger';
import { loadConfig } from './app-config';
import { createRootLogger } from './logging/root-logger';

/** The document as committed: what `/docs-json` serves, as stable, readable JSON. */
export function serialiseOpenApi(document: OpenAPIObject): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/**
 * The OpenAPI document of the application, built without a database or a port: in
 * Nest's preview mode the modules and controllers are scanned but no provider is
 * created. The configuration is the local one, whose routes are the document's.
 */
export async function buildOfflineOpenApiDocument(): Promise<OpenAPIObject> {
  // Values only the start needs (a signing secret): none of them shapes a route.
  const config = loadConfig({ APP_ENV: 'local', LOG_LEVEL: 'silent', JWT_SECRET: 'x'.repeat(32) });
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, createRootLogger(config)), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  try {
    return buildOpenApiDocument(app);
  } finally {
    await app.close();
  }
}

// `npm run openapi`: writes openapi.json in the working directory (npm runs it at the repository root).
if (require.main === module) {
  const file = path.resolve(process.argv[2] ?? 'openapi.json');
  void buildOfflineOpenApiDocument().then((document) => {
    writeFileSync(file, serialiseOpenApi(document));
    process.stdout.write(`wrote ${path.relative(process.cwd(), file)} (${Object.keys(document.paths).length} paths)\n`);
  });
}
