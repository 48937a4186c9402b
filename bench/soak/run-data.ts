import type { EdgeResults } from './edge-protocol';
import type { Incarnation } from './fleet';
import type { ModelCall } from './model';
import type { RecordedMessage } from './push-recorder';
import type { Seeded } from './seed';
import type { SoakSettings } from './settings';
import type { UpstreamCall } from './dart-front';

export type FaultKind = 'kill' | 'postgres' | 'dart-maintenance' | 'dart-slow' | 'model' | 'fcm';

/** A fault as it happened: from when it was put in place to when it was lifted (a killed instance: until it served again). */
export interface FaultWindow {
  kind: FaultKind;
  label: string;
  start: number;
  end: number;
}

export interface PublishedFiling {
  rceptNo: string;
  corpCode: string;
  /** A company of the stock master (watchable). */
  listed: boolean;
  publishedAt: number;
}

/** Once a second, from the soak's own connection (absent while the database is away). */
export interface BacklogSample {
  at: number;
  analyses: number;
  fanouts: number;
  pending: number;
  held: number;
  sending: number;
}

export interface DeliveryRow {
  rcept_no: string;
  fcm_token: string;
  user_id: number;
  status: string;
  created_at: Date;
}

/** What the database holds at the end, for the soak's filings and users. */
export interface DatabaseState {
  disclosures: Map<string, { createdAt: number }>;
  analyses: Map<string, { status: string; oneLiner: string | null; attempts: number; docLength: number | null }>;
  fanouts: Map<string, { status: string; expandedAt: number | null }>;
  deliveries: DeliveryRow[];
  revealed: Array<{ user_id: number; rcept_no: string; revealed_at: Date }>;
  quota: Array<{ user_id: number; week_start: Date; weekly_used: number }>;
  adRewards: Array<{ transaction_id: string; user_id: number; granted_at: Date }>;
  shortFilings: Set<string>;
  dartBudget: Array<{ day: string; used: number }>;
  /** At the end, for every token and watch entry a write touched: its owner, and whether notifications are on (absent: no row). */
  finalOwners: Map<string, number>;
  finalWatches: Map<string, boolean>;
}

/** Everything the checks and the report read. */
export interface RunData {
  settings: SoakSettings;
  /** From the soak's start to the run's: the database, the doubles, the seed, the fleet's start and its warm-up. */
  setupMs?: number;
  runStart: number;
  /** When the load stopped (runStart + runMs). */
  runEnd: number;
  /** When the queues were empty again (or the drain gave up). */
  drainEnd: number;
  drained: boolean;
  filings: PublishedFiling[];
  faults: FaultWindow[];
  lives: Incarnation[];
  edge: EdgeResults;
  messages: RecordedMessage[];
  unregisteredAt: Map<string, number>;
  doomed: (token: string) => boolean;
  modelCalls: ModelCall[];
  upstream: UpstreamCall[];
  samples: BacklogSample[];
  db: DatabaseState;
  seeded: Seeded;
  postgres: { origin: string; outageMethod: string };
  /** Singleton jobs of the fleet (the ones held somewhere at the end of the warm-up). */
  singletonJobs: string[];
}

/** The `ms` of each item. */
export const durations = (items: ReadonlyArray<{ ms: number }>): number[] => items.map((item) => item.ms);

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

/** A run as JSON (maps, sets and dates kept), so its checks can be evaluated again: `main.js --evaluate <run.json>`. */
export function serialiseRun(data: RunData): string {
  return JSON.stringify(data, function (this: Record<string, unknown>, key: string, value: unknown) {
    const raw = this[key];
    if (raw instanceof Date) return { __date: raw.toISOString() };
    if (raw instanceof Map) return { __map: [...raw] };
    if (raw instanceof Set) return { __set: [...raw] };
    return value;
  });
}

export function parseRun(text: string, doomed: (token: string) => boolean): RunData {
  const data = JSON.parse(text, (_key, value: unknown) => {
    if (value !== null && typeof value === 'object') {
      const tagged = value as { __date?: string; __map?: Array<[unknown, unknown]>; __set?: unknown[] };
      if (tagged.__date !== undefined) return new Date(tagged.__date);
      if (tagged.__map !== undefined) return new Map(tagged.__map);
      if (tagged.__set !== undefined) return new Set(tagged.__set);
    }
    return value;
  }) as RunData;
  // Settings added since the run was recorded take their defaults.
  return { ...data, settings: { ...data.settings, recoveryMs: data.settings.recoveryMs ?? 180_000 }, doomed };
}
