/**
 * Deepest nesting of arrays and objects a request body may have. The API's bodies
 * are one or two levels deep; anything near this is an attack on the recursive
 * validators (class-transformer, class-validator), which overflow the stack.
 */
export const MAX_BODY_DEPTH = 32;

/** True when arrays and objects in `value` nest deeper than `maxDepth` (iterative, so safe at any depth). */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    const depth = next.depth + 1;
    if (depth > maxDepth) return true;
    for (const child of Object.values(next.value)) {
      if (typeof child === 'object' && child !== null) pending.push({ value: child, depth });
    }
  }
  return false;
}

/**
 * NUL, which PostgreSQL text cannot hold (it fails the whole statement), and
 * unpaired UTF-16 surrogates, which have no UTF-8 form and would be stored as
 * U+FFFD, silently changing what the client sent.
 */
const UNSTORABLE_CHARACTER = /[\0\p{Surrogate}]/u;

/**
 * The dotted path of the first string in `value` (a key or a value, at any
 * depth) that holds a character no text column can store, or null when none does.
 * `path` names `value` itself.
 */
export function findUnstorableText(value: unknown, path: string): string | null {
  const pending: { value: unknown; path: string }[] = [{ value, path }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value === 'string') {
      if (UNSTORABLE_CHARACTER.test(next.value)) return next.path;
    } else if (typeof next.value === 'object' && next.value !== null) {
      for (const [key, child] of Object.entries(next.value)) {
        const childPath = next.path ? `${next.path}.${key}` : key;
        if (UNSTORABLE_CHARACTER.test(key)) return childPath;
        pending.push({ value: child, path: childPath });
      }
    }
  }
  return null;
}
