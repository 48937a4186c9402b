import { type JournalEntry, outcomeOf } from './edge-protocol';

/** A change of a key's value, known to have happened between t0 and t1; 'unknown' when the write may or may not have taken effect. */
interface Change<V> {
  t0: number;
  t1: number;
  value: V | 'unknown';
}

/**
 * The ground truth of one kind of state (who owns a token; whether a user watches a company with
 * notifications on) over time, from the seed and the journal of writes. A write's effect is known
 * only to lie between its sending and its answer: a question about an instant inside that span,
 * or about a span that overlaps it, is answered 'unknown' rather than guessed.
 */
export class Timeline<V> {
  private readonly changes = new Map<string, Change<V>[]>();

  constructor(private readonly initial: (key: string) => V) {}

  add(key: string, t0: number, t1: number, value: V | 'unknown'): void {
    let list = this.changes.get(key);
    if (!list) this.changes.set(key, (list = []));
    list.push({ t0, t1, value });
  }

  /** Orders each key's changes; call once after the last `add`. */
  seal(): void {
    for (const list of this.changes.values()) list.sort((a, b) => a.t0 - b.t0);
  }

  /** The value at `t`, or 'unknown' when a change was under way then or an earlier one left it unknown. */
  valueAt(key: string, t: number): V | 'unknown' {
    let value: V | 'unknown' = this.initial(key);
    for (const change of this.changes.get(key) ?? []) {
      if (change.t0 > t) break;
      if (change.t1 > t) return change.value === value ? value : 'unknown';
      value = change.value;
    }
    return value;
  }

  /** True when the value is certainly `expected` from `a` to `b`. */
  holdsOver(key: string, a: number, b: number, expected: V): boolean {
    if (this.valueAt(key, a) !== expected) return false;
    for (const change of this.changes.get(key) ?? []) {
      if (change.t0 > b) break;
      if (change.t1 >= a && change.value !== expected) return false;
    }
    return true;
  }

  /** True when the value is certainly not `value` at any moment from `a` to `b` (nor possibly so, through a write in doubt). */
  excludesOver(key: string, a: number, b: number, value: V): boolean {
    const start = this.valueAt(key, a);
    if (start === 'unknown' || start === value) return false;
    for (const change of this.changes.get(key) ?? []) {
      if (change.t0 > b) break;
      if (change.t1 >= a && (change.value === value || change.value === 'unknown')) return false;
    }
    return true;
  }

  /** When the value last changed (the change's answer) at or before `t`; undefined: the seed's value. */
  changedAt(key: string, t: number): number | undefined {
    let at: number | undefined;
    for (const change of this.changes.get(key) ?? []) if (change.t1 <= t) at = change.t1;
    return at;
  }

  keys(): IterableIterator<string> {
    return this.changes.keys();
  }
}

export type WatchState = 'on' | 'off' | 'absent';

export const watchKey = (user: number, corp: string) => `${user}:${corp}`;

/**
 * Token owners and watch states over the run: the seed, then every write of the journal (applied
 * between its sending and its answer; one without a definite answer decided by the state at the
 * end, or unknown when that cannot tell), then the tokens the push provider reported UNREGISTERED
 * (deleted by the service from that answer on).
 */
export function buildTimelines(
  seeded: { tokens: { token: string[]; user: number[] }; watches: { user: number[]; corp: string[]; notify: boolean[] } },
  journal: readonly JournalEntry[],
  unregisteredAt: ReadonlyMap<string, number>,
  final: { owners: ReadonlyMap<string, number>; watches: ReadonlyMap<string, boolean> },
): {
  owners: Timeline<number | null>;
  watches: Timeline<WatchState>;
  tokensEverOf: Map<number, Set<string>>;
  watchersEverOf: Map<string, Set<number>>;
} {
  const seededOwner = new Map<string, number>();
  seeded.tokens.token.forEach((token, i) => seededOwner.set(token, seeded.tokens.user[i]));
  const seededWatch = new Map<string, WatchState>();
  seeded.watches.user.forEach((user, i) =>
    seededWatch.set(watchKey(user, seeded.watches.corp[i]), seeded.watches.notify[i] ? 'on' : 'off'),
  );

  const owners = new Timeline<number | null>((token) => seededOwner.get(token) ?? null);
  const watches = new Timeline<WatchState>((key) => seededWatch.get(key) ?? 'absent');
  const tokensEverOf = new Map<number, Set<string>>();
  const watchersEverOf = new Map<string, Set<number>>();
  const ownToken = (user: number, token: string) => {
    let set = tokensEverOf.get(user);
    if (!set) tokensEverOf.set(user, (set = new Set()));
    set.add(token);
  };
  const watchCorp = (user: number, corp: string) => {
    let set = watchersEverOf.get(corp);
    if (!set) watchersEverOf.set(corp, (set = new Set()));
    set.add(user);
  };
  seededOwner.forEach((user, token) => ownToken(user, token));
  seeded.watches.user.forEach((user, i) => watchCorp(user, seeded.watches.corp[i]));

  // A write left in doubt is the last one on its token or entry (the load leaves those alone
  // afterwards), so the state at the end tells whether it took effect.
  const keyOf = (entry: JournalEntry) =>
    entry.token !== undefined ? `t:${entry.token}` : entry.corp !== undefined ? `w:${watchKey(entry.user, entry.corp)}` : '';
  const lastOn = new Map<string, JournalEntry>();
  for (const entry of journal) if (keyOf(entry) !== '') lastOn.set(keyOf(entry), entry);
  const tookEffect = (entry: JournalEntry): boolean | undefined => {
    if (lastOn.get(keyOf(entry)) !== entry) return undefined;
    const watch = entry.corp === undefined ? undefined : final.watches.get(watchKey(entry.user, entry.corp));
    switch (entry.op) {
      case 'token-register':
      case 'token-move':
        return final.owners.get(entry.token!) === entry.user;
      case 'token-delete':
        return !final.owners.has(entry.token!);
      case 'watch-add':
        return watch !== undefined;
      case 'watch-remove':
        return watch === undefined;
      case 'notify':
        return watch === entry.notify;
      default:
        return undefined;
    }
  };

  for (const entry of journal) {
    let outcome = outcomeOf(entry.status);
    if (outcome === 'unknown') {
      const effect = tookEffect(entry);
      if (effect !== undefined) outcome = effect ? 'applied' : 'refused';
    }
    if (outcome === 'refused') continue;
    const known = <V>(value: V): V | 'unknown' => (outcome === 'applied' ? value : 'unknown');
    switch (entry.op) {
      case 'token-register':
      case 'token-move':
        owners.add(entry.token!, entry.sent, entry.answered, known(entry.user));
        ownToken(entry.user, entry.token!);
        break;
      case 'token-delete':
        owners.add(entry.token!, entry.sent, entry.answered, known(null));
        break;
      case 'watch-add':
        watches.add(watchKey(entry.user, entry.corp!), entry.sent, entry.answered, known('on'));
        watchCorp(entry.user, entry.corp!);
        break;
      case 'watch-remove':
        watches.add(watchKey(entry.user, entry.corp!), entry.sent, entry.answered, known('absent'));
        break;
      case 'notify':
        watches.add(watchKey(entry.user, entry.corp!), entry.sent, entry.answered, known(entry.notify ? 'on' : 'off'));
        break;
      default:
        break;
    }
  }
  for (const [token, at] of unregisteredAt) owners.add(token, at, at, null);
  owners.seal();
  watches.seal();
  return { owners, watches, tokensEverOf, watchersEverOf };
}
