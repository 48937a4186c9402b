/**
 * A small seeded generator (Marsaglia's xorshift32): the same seed always yields
 * the same sandbox, which is what tests and reproducible benchmarks need. Not for
 * anything that must be unpredictable.
 */
export class Prng {
  private state: number;

  constructor(seed: number) {
    // Spread nearby seeds apart; xorshift must never hold 0.
    this.state = Math.imul((seed | 0) ^ 0x9e3779b9, 0x85ebca6b) >>> 0 || 0x6d2b79f5;
    for (let i = 0; i < 4; i++) this.next();
  }

  /** A float in [0, 1). */
  next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state / 0x1_0000_0000;
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** An item chosen with probability proportional to its `weight`. */
  weighted<T extends { weight: number }>(items: readonly T[]): T {
    const total = items.reduce((sum, item) => sum + item.weight, 0);
    let roll = this.next() * total;
    for (const item of items) {
      roll -= item.weight;
      if (roll < 0) return item;
    }
    return items[items.length - 1];
  }

  /** `length` decimal digits, leading zeros allowed. */
  digits(length: number): string {
    let text = '';
    // Up to 9 digits per draw: 10^9 fits the 32 bits of one step.
    for (let left = length; left > 0; left -= 9) {
      const width = Math.min(left, 9);
      text += String(this.int(0, 10 ** width - 1)).padStart(width, '0');
    }
    return text;
  }
}

/** A stable 32-bit hash of a string (FNV-1a), to derive per-record generators. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
