import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Disclosure Briefing API')
    .setDescription(
      'Filings of listed Korean companies with one-line AI summaries, full analyses within a weekly quota, ' +
        'watchlists with push notifications and subscriptions. Errors share one body: ' +
        '`{ statusCode, error, message, code }`.',
    )
    .setVersion('1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'jwt')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Admin-Key' }, 'admin-key')
    .build();
  return SwaggerModule.createDocument(app, config);
}

/** Swagger UI at `/docs`, the OpenAPI JSON at `/docs-json`. */
export function setupSwagger(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs-json',
    swaggerOptions: { persistAuthorization: true },
  });
}
