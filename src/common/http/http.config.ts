import { type AddressInfo, isIP } from 'node:net';
import { type EnvReader, splitList } from '../../config/env-reader';
import type { ConfigEnvironment } from '../../config/environment';

/** How the HTTP server listens and whom it trusts: address and port, CORS, the client-IP header. */
export interface HttpConfig {
  /**
   * The address to listen on. Undefined: every interface, as Node.js chooses it (`::`,
   * which takes IPv4 too, or `0.0.0.0` on a host without IPv6).
   */
  host?: string;
  port: number;
  trustedClientIpHeader?: string;
  /** Proxies in front of the service that append to that header: the address taken is this many from the right. */
  trustedProxyHops: number;
  /** `'*'` allows any origin. */
  corsOrigins: '*' | string[];
}

export function httpConfig(read: EnvReader, { appEnv }: ConfigEnvironment): HttpConfig {
  const corsRaw = read.string('CORS_ORIGINS', '*');
  const corsOrigins = corsRaw === '*' ? '*' : parseOrigins(read, splitList(corsRaw));

  const clientIpHeader = read.optionalString('TRUSTED_CLIENT_IP_HEADER');
  if (clientIpHeader !== undefined && !/^[A-Za-z0-9-]+$/.test(clientIpHeader)) {
    read.fail('TRUSTED_CLIENT_IP_HEADER', 'an HTTP header name such as X-Real-IP', clientIpHeader);
  }

  return {
    host: listenHost(read, appEnv === 'local'),
    port: read.integer('PORT', 3000, { min: 0, max: 65535 }),
    trustedClientIpHeader: clientIpHeader?.toLowerCase(),
    trustedProxyHops: read.integer('TRUSTED_PROXY_HOPS', 1, { min: 1, max: 20 }),
    corsOrigins,
  };
}

function parseOrigins(read: EnvReader, origins: string[]): string[] {
  for (const origin of origins) {
    try {
      const parsed = new URL(origin);
      if (parsed.origin !== origin.replace(/\/$/, '')) throw new Error('not an origin');
    } catch {
      read.fail('CORS_ORIGINS', '* or a comma-separated list of origins such as https://example.com', origin);
    }
  }
  return origins.map((origin) => origin.replace(/\/$/, ''));
}

/**
 * HOST, an IP address. Unset: loopback in local mode, where the sign-in stand-in gives a token
 * for any account to whoever asks, so only this machine may ask; every interface in dev and
 * production, deployments that others reach (a container's own network decides who can).
 */
function listenHost(read: EnvReader, local: boolean): string | undefined {
  const host = read.optionalString('HOST');
  if (host === undefined) return local ? '127.0.0.1' : undefined;
  if (isIP(host) === 0) {
    read.fail(
      'HOST',
      'an IP address to listen on: 127.0.0.1 (this machine only), 0.0.0.0 (every IPv4 interface) or :: (every interface)',
      host,
    );
    return local ? '127.0.0.1' : undefined;
  }
  return host;
}

/** The address a server listens on, as the start-up log tells it: a URL, and what a wildcard address means. */
export function describeListenAddress({ address, family, port }: AddressInfo): string {
  const host = family === 'IPv6' ? `[${address}]` : address;
  const reach = address === '::' ? ' (every interface, IPv4 and IPv6)' : address === '0.0.0.0' ? ' (every IPv4 interface)' : '';
  return `http://${host}:${port}${reach}`;
}
