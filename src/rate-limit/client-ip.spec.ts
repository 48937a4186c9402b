import type { IncomingMessage } from 'node:http';
import { clientIpOf } from './client-ip';

function request(headers: IncomingMessage['headers'], remoteAddress?: string): IncomingMessage {
  return { headers, socket: { remoteAddress } } as unknown as IncomingMessage;
}

describe('clientIpOf', () => {
  it('takes the right-most address of the trusted header: the one the proxy wrote, not one the client prepended', () => {
    const req = request({ 'x-forwarded-for': '6.6.6.6, 203.0.113.7' }, '10.0.0.1');
    expect(clientIpOf(req, 'x-forwarded-for')).toBe('203.0.113.7');
    expect(clientIpOf(req, 'x-forwarded-for', 1)).toBe('203.0.113.7');
  });

  it('counts a configured number of trusted proxy hops from the right', () => {
    const req = request({ 'x-forwarded-for': '6.6.6.6, 203.0.113.7, 10.0.0.2' }, '10.0.0.1');
    expect(clientIpOf(req, 'x-forwarded-for', 2)).toBe('203.0.113.7');
    expect(clientIpOf(req, 'x-forwarded-for', 3)).toBe('6.6.6.6');
  });

  it('takes the left-most address when the list is shorter than the hop count', () => {
    expect(clientIpOf(request({ 'x-forwarded-for': '203.0.113.7' }, '10.0.0.1'), 'x-forwarded-for', 3)).toBe('203.0.113.7');
  });

  it('takes a single-address header as is', () => {
    expect(clientIpOf(request({ 'x-real-ip': ' 198.51.100.4 ' }, '10.0.0.1'), 'x-real-ip')).toBe('198.51.100.4');
  });

  it('reads a repeated header as one list joined in order', () => {
    const req = request({ 'x-client-ip': ['192.0.2.1, 192.0.2.2', '192.0.2.3'] } as IncomingMessage['headers'], '10.0.0.1');
    expect(clientIpOf(req, 'x-client-ip')).toBe('192.0.2.3');
    expect(clientIpOf(req, 'x-client-ip', 2)).toBe('192.0.2.2');
  });

  it('falls back to the socket address when the trusted header is absent', () => {
    expect(clientIpOf(request({}, '10.1.2.3'), 'x-real-ip')).toBe('10.1.2.3');
  });

  it('falls back to the socket address when the trusted header is empty', () => {
    expect(clientIpOf(request({ 'x-real-ip': '' }, '10.1.2.3'), 'x-real-ip')).toBe('10.1.2.3');
    expect(clientIpOf(request({ 'x-real-ip': '1.2.3.4, ' }, '10.1.2.3'), 'x-real-ip')).toBe('10.1.2.3');
  });

  it('strips the IPv4-mapped IPv6 prefix from the socket address', () => {
    expect(clientIpOf(request({}, '::ffff:192.0.2.10'))).toBe('192.0.2.10');
  });

  it('keeps a real IPv6 address', () => {
    expect(clientIpOf(request({}, '2001:db8::1'))).toBe('2001:db8::1');
  });

  it('ignores client-supplied headers when no trusted header is configured', () => {
    const req = request({ 'x-forwarded-for': '203.0.113.7', 'x-real-ip': '203.0.113.8' }, '::ffff:10.9.8.7');
    expect(clientIpOf(req)).toBe('10.9.8.7');
    expect(clientIpOf(req, undefined)).toBe('10.9.8.7');
    expect(clientIpOf(req, '')).toBe('10.9.8.7');
  });

  it('uses only the configured header, not other forwarding headers', () => {
    const req = request({ 'x-forwarded-for': '203.0.113.7' }, '10.0.0.1');
    expect(clientIpOf(req, 'x-real-ip')).toBe('10.0.0.1');
  });

  it('answers "unknown" when the socket has no address', () => {
    expect(clientIpOf(request({}, undefined))).toBe('unknown');
  });
});
