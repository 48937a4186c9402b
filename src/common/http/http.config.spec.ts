import * as net from 'node:net';
import { ConfigError, EnvReader } from '../../config/env-reader';
import { APP_ENVS, type AppEnv } from '../../config/environment';
import { describeListenAddress, httpConfig } from './http.config';

/** The HTTP slice as the configuration reads it, for APP_ENV (default local) and the rest of `env`. */
function httpSliceOf(env: Record<string, string | undefined>) {
  const appEnv = (env.APP_ENV ?? 'local') as AppEnv;
  expect(APP_ENVS).toContain(appEnv);
  const read = new EnvReader(env);
  const config = httpConfig(read, { appEnv, production: appEnv === 'production' });
  read.assertValid();
  return config;
}

const PRODUCTION = { APP_ENV: 'production' };

describe('HOST, the address the server listens on', () => {
  it('is loopback in local mode, where the sign-in stand-in answers anyone', () => {
    expect(httpSliceOf({}).host).toBe('127.0.0.1');
    expect(httpSliceOf({ APP_ENV: 'local' }).host).toBe('127.0.0.1');
  });

  it('is every interface (left to Node.js) in dev and production', () => {
    expect(httpSliceOf({ APP_ENV: 'dev' }).host).toBeUndefined();
    expect(httpSliceOf(PRODUCTION).host).toBeUndefined();
  });

  it('takes any IP address, in every mode', () => {
    expect(httpSliceOf({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(httpSliceOf({ HOST: '::' }).host).toBe('::');
    expect(httpSliceOf({ ...PRODUCTION, HOST: '127.0.0.1' }).host).toBe('127.0.0.1');
    expect(httpSliceOf({ APP_ENV: 'dev', HOST: '10.1.2.3' }).host).toBe('10.1.2.3');
  });

  it.each(['localhost', 'example.com', '0.0.0.0:3000', '256.1.1.1', '*'])('stops the start on %s, naming HOST', (host) => {
    let error: unknown;
    try {
      httpSliceOf({ HOST: host });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain(`HOST must be an IP address to listen on`);
    expect((error as ConfigError).message).toContain(`(got "${host}")`);
  });
});

describe('describeListenAddress', () => {
  it('gives a URL of the address, and says what a wildcard address reaches', () => {
    expect(describeListenAddress({ address: '127.0.0.1', family: 'IPv4', port: 3000 })).toBe('http://127.0.0.1:3000');
    expect(describeListenAddress({ address: '0.0.0.0', family: 'IPv4', port: 80 })).toBe('http://0.0.0.0:80 (every IPv4 interface)');
    expect(describeListenAddress({ address: '::', family: 'IPv6', port: 3000 })).toBe('http://[::]:3000 (every interface, IPv4 and IPv6)');
    expect(describeListenAddress({ address: '::1', family: 'IPv6', port: 3000 })).toBe('http://[::1]:3000');
  });

  it('describes what a real server reports, so the start-up line names the port it got', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as net.AddressInfo;
      expect(describeListenAddress(server.address() as net.AddressInfo)).toBe(`http://127.0.0.1:${port}`);
    } finally {
      server.close();
    }
  });
});
