# syntax=docker/dockerfile:1
# Node.js 26 is the Active LTS line.
ARG NODE_IMAGE=node:26-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ormconfig.ts ./
COPY src ./src
COPY migrations ./migrations
# dist/ holds the service only: local/ (sandbox, test doubles, embedded PostgreSQL) is never built here.
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    APP_ENV=production \
    PORT=3000
WORKDIR /app
COPY package.json package-lock.json ./
# The production install: no dev dependencies (compiler, pino-pretty, sandbox, embedded PostgreSQL binaries) and no optional ones.
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The service needs no write access to its own files.
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Migrations are applied by the server itself at start, under an advisory lock.
CMD ["node", "dist/src/main.js"]
