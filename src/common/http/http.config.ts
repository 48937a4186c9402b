import { type EnvReader, splitList } from '../../config/env-reader';

/** How the HTTP server listens and whom it trusts: port, CORS, the client-IP header. */
export interface HttpConfig {
  port: number;
  trustedClientIpHeader?: string;
  /** Proxies in front of the service that append to that header: the address taken is this many from the right. */
  trustedProxyHops: number;
  /** `'*'` allows any origin. */
  corsOrigins: '*' | string[];
}

export function httpConfig(read: EnvReader): HttpConfig {
  const corsRaw = read.string('CORS_ORIGINS', '*');
  const corsOrigins = corsRaw === '*' ? '*' : parseOrigins(read, splitList(corsRaw));

  const clientIpHeader = read.optionalString('TRUSTED_CLIENT_IP_HEADER');
  if (clientIpHeader !== undefined && !/^[A-Za-z0-9-]+$/.test(clientIpHeader)) {
    read.fail('TRUSTED_CLIENT_IP_HEADER', 'an HTTP header name such as X-Real-IP', clientIpHeader);
  }

  return {
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
