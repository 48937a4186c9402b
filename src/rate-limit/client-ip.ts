import type { IncomingMessage } from 'node:http';

/**
 * The client address used as a rate-limit key.
 *
 * With a trusted header configured (set by the proxy in front of the service), its
 * values form one comma list, repeated headers joined in order. Each proxy appends
 * the address it saw on the right, so everything left of what our own proxies wrote
 * came from the client and can be forged: the address taken is the `trustedHops`-th
 * from the right (1: the right-most, written by the one proxy in front of us).
 * Without a header, or with an empty entry there, it is the socket's peer address.
 */
export function clientIpOf(req: IncomingMessage, trustedHeader?: string, trustedHops = 1): string {
  if (trustedHeader) {
    const value = req.headers[trustedHeader];
    const addresses = (Array.isArray(value) ? value.join(',') : (value ?? '')).split(',').map((entry) => entry.trim());
    const written = addresses[Math.max(0, addresses.length - trustedHops)];
    if (written) return written;
  }
  const address = req.socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
}
