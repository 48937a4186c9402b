import type { IncomingMessage } from 'node:http';

/**
 * The client address used as a rate-limit key: the first address in the trusted
 * header when one is configured (set by the proxy in front of the service),
 * otherwise the socket's peer address.
 */
export function clientIpOf(req: IncomingMessage, trustedHeader?: string): string {
  if (trustedHeader) {
    const value = req.headers[trustedHeader];
    const first = (Array.isArray(value) ? value[0] : value)?.split(',')[0]?.trim();
    if (first) return first;
  }
  const address = req.socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
}
