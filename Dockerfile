# syntax=docker/dockerfile:1
# Node.js 24 LTS, the major of `engines` in package.json and of CI's test runs (test/e2e/packaging.e2e-spec.ts checks they agree).
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ormconfig.ts ./
COPY src ./src
COPY migrations ./migrations
# dist/ holds the service only: local/ (sandbox, sign-in stand-in, test doubles, embedded PostgreSQL) is never built here.
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
# HOST stays unset: with APP_ENV=production the server listens on every interface of the container
# (APP_ENV=local would mean its loopback, out of reach; docker-compose.yml sets HOST=0.0.0.0 anyway).
ENV NODE_ENV=production \
    APP_ENV=production \
    PORT=3000
WORKDIR /app
COPY package.json package-lock.json ./
COPY deploy/prune-node-modules.sh /tmp/
# The production install: no dev dependencies (compiler, pino-pretty, embedded PostgreSQL binaries)
# and no optional ones; no install scripts (none is needed). Then what a server never reads goes.
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund \
    && sh /tmp/prune-node-modules.sh && rm /tmp/prune-node-modules.sh \
    && npm cache clean --force
COPY --from=build /app/dist ./dist
# The service needs no write access to its own files.
USER node
EXPOSE 3000
# Readiness, not liveness: an instance without its database or a required setting (DART_API_KEY) is unhealthy.
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Migrations are applied by the server itself at start, under an advisory lock. The V8 flag is the
# one of `npm run start:prod` (docs/operations.md, "Node.js flags"; test/e2e/packaging.e2e-spec.ts).
CMD ["node", "--initial-old-space-size=128", "--max-semi-space-size=16", "dist/src/main.js"]
