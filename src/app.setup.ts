import type { NestExpressApplication } from '@nestjs/platform-express';
import { ModulesContainer } from '@nestjs/core';
import type { Express } from 'express';
import helmet from 'helmet';
import { Logger } from 'nestjs-pino';
import type { Logger as PinoLogger } from 'pino';
import { Clock } from './common/clock';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { bodyParser } from './common/http/body-parsers';
import { ServiceExpressAdapter } from './common/http/express-adapter';
import { type EtagFunction, enhancersTheFastLaneWouldSkip, HttpCacheFastLane } from './http-cache/http-cache-fast-lane';
import { securityHeaders } from './common/http/security-headers';
import { setupSwagger, SWAGGER_UI_PATH } from './common/http/swagger';
import { refuseLongUrls } from './common/http/url-length';
import { createValidationPipe } from './common/http/validation.pipe';
import { installLeanAsyncResourceBind } from './runtime-fixes/async-resource-bind/async-resource-bind';
import type { AppConfig } from './app-config';
import { ROOT_LOGGER } from './logging/logging.module';
import { Metrics } from './metrics/metrics';
import { recordRequestDuration } from './metrics/request-duration';
import { QuietFrameworkLogger } from './logging/quiet-framework-logger';
import { createRequestLogger } from './logging/request-logger';
import { protectSecrets } from './logging/root-logger';
import { RateLimitMiddleware } from './rate-limit/rate-limit.middleware';

/** Headers browsers may send and read across origins. */
const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'X-Confirm-Withdraw',
  'X-Firebase-AppCheck',
  'X-Worker-Secret',
  'X-Request-Id',
];
const CORS_EXPOSED_HEADERS = ['Retry-After', 'X-Request-Id'];

/**
 * Swagger UI's pages get helmet's defaults (nosniff, HSTS, frame and referrer policies, a CSP
 * it lives with: its scripts are same-origin files, its styles partly inline), except two that
 * would break legitimate use: upgrading requests to https breaks /docs served over plain http,
 * and the API is meant to be read cross-origin (CORS decides who may).
 *
 * Every other answer is JSON, which a browser never renders as a page: it gets what OWASP's REST
 * Security Cheat Sheet asks of API responses (HSTS, nosniff, and no framing, with a CSP that
 * allows nothing), and not the headers that only govern a rendered document.
 */
const SECURITY_HEADERS = securityHeaders({
  documentsPath: SWAGGER_UI_PATH,
  documents: helmet({
    contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } },
    crossOriginResourcePolicy: { policy: 'cross-origin' },
  }),
  api: helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    xFrameOptions: { action: 'deny' },
    // Only a rendered document acts on these.
    crossOriginOpenerPolicy: false,
    crossOriginResourcePolicy: false,
    originAgentCluster: false,
    referrerPolicy: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  }),
});

/**
 * Installs the request pipeline in the order of the specification, outermost
 * first: (request log, security headers, 414 to URLs over 4 KiB), rate limit, auth-route rate limit,
 * CORS, (the answer to a rate-limited request, so it carries CORS), then body
 * parsing; JWT parsing and the authentication check are route guards, and the
 * HTTP cache an interceptor, inside routing. Called before `init()` by the server
 * and by the end-to-end tests alike.
 */
export function configureApp(app: NestExpressApplication, config: AppConfig): void {
  // The adapter sends the HTTP cache's stored bytes as they are; the bind keeps each request's objects
  // out of the old generation where Node needs it (docs/request-pipeline.md).
  if (!(app.getHttpAdapter() instanceof ServiceExpressAdapter)) {
    throw new Error(
      'The application must be created with ServiceExpressAdapter (NestFactory.create(module, new ServiceExpressAdapter(), options))',
    );
  }
  installLeanAsyncResourceBind();
  app.disable('x-powered-by');
  app.useLogger(new QuietFrameworkLogger(app.get(Logger)));

  const rootLogger = app.get<PinoLogger>(ROOT_LOGGER);
  protectSecrets(rootLogger, config);
  const clock = app.get(Clock);
  app.use(createRequestLogger(rootLogger, clock));
  app.use(recordRequestDuration(app.get(Metrics), clock));
  app.use(SECURITY_HEADERS);
  app.use(refuseLongUrls());
  const rateLimits = app.get(RateLimitMiddleware);
  app.use(rateLimits.general);
  app.use(rateLimits.auth);
  app.enableCors({
    origin: config.corsOrigins === '*' ? '*' : config.corsOrigins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: 600,
  });
  app.use(rateLimits.answerRefusal);
  app.use(bodyParser());
  // Cache hits are answered here, where routing starts, with the ETag Express would give them.
  const skipped = enhancersTheFastLaneWouldSkip(app.get(ModulesContainer));
  if (skipped.length > 0) {
    throw new Error(
      `The HTTP cache's fast lane answers cached GETs before Nest routes them and would skip ${skipped.join(', ')}: ` +
        'apply guards and interceptors to routes (as the cached routes do), or take the fast lane out first',
    );
  }
  app.use(app.get(HttpCacheFastLane).middleware((app.getHttpAdapter().getInstance() as Express).get('etag fn') as EtagFunction | false));

  app.useGlobalFilters(new AllExceptionsFilter());
  app.useGlobalPipes(createValidationPipe());
  setupSwagger(app);
}
