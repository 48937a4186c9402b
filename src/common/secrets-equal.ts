import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Known only to this process, so nobody can choose inputs whose digests collide or compare early. */
const COMPARISON_KEY = randomBytes(32);

function digest(value: string): Buffer {
  return createHmac('sha256', COMPARISON_KEY).update(value, 'utf8').digest();
}

/**
 * Whether a presented secret equals the expected one, in time that depends on
 * neither their contents nor their lengths: both sides are reduced to HMAC
 * digests of the same size before the constant-time comparison.
 */
export function secretsEqual(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}
