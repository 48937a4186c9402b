import type { RequestRecord } from './edge-protocol';
import { durations, type FaultWindow, percentile, type RunData } from './run-data';

/** The HTTP cache keeps at most 64 MB of bodies (DEFAULT_MEMORY_LIMITS), as Buffers; 16 MB more for sockets and the rest. */
const BUFFERS_BOUND_BYTES = 80 * 2 ** 20;
import { buildTimelines, watchKey } from './timelines';

/** One row of the invariant table. */
export interface Check {
  name: string;
  expected: string;
  observed: string;
  pass: boolean;
  /** Examples and counts behind the observation, for the report. */
  notes?: string[];
}

/** How each fault went, for the report. */
export interface FaultOutcome {
  fault: FaultWindow;
  /** Errors (5xx or no answer) during the fault and its settling time, and how many of them were what the fault allows. */
  errors: number;
  allowedErrors: number;
  readP99DuringMs: number;
  pushP50DuringMs: number;
  /** From the fault's end until reads and pushes are back within their targets; null: not within the run. */
  recoveryMs: number | null;
}

export interface Evaluation {
  checks: Check[];
  faults: FaultOutcome[];
  /** Filing → first push, per filing that reached a device. */
  pushLatency: Array<{ publishedAt: number; ms: number }>;
  summary: Record<string, number | string>;
}

const BUCKET_MS = 10_000;
/** A crash or an outage this soon after a message was handed over may have kept its outcome from being recorded. */
const RECORD_WINDOW_MS = 30_000;
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (Number.isFinite(n) ? `${n < 100 ? n.toFixed(1) : int(n)} ms` : 'n/a');
const seconds = (n: number) => (Number.isFinite(n) ? `${(n / 1000).toFixed(1)} s` : 'n/a');

const isError = (request: RequestRecord) => request.status === 0 || request.status >= 500;
const median = (values: number[]) => percentile(values, 0.5);
/** The warm-up before an instance's memory is taken as its level: the first fifth of the run, or a minute after a restart. */
export const WARMUP = { share: 0.2, afterRestartMs: 60_000 } as const;

/** Whether a fault allows this failed request: what an operator accepts while that fault lasts. */
function allowedBy(fault: FaultWindow, request: RequestRecord): boolean {
  switch (fault.kind) {
    case 'kill':
      // In flight on the instance when it died: the proxy's 502.
      return request.status === 502 && request.fromProxy;
    case 'postgres':
      return request.status === 503 && request.retryAfter;
    case 'dart-maintenance':
    case 'dart-slow':
      // A company page not stored yet needs the disclosure system.
      return request.status === 503 && request.retryAfter && request.route === 'GET /companies/{corpCode}';
    default:
      return false;
  }
}

const overlaps = (request: RequestRecord, from: number, to: number) => request.at <= to && request.at + request.ms >= from;

export function evaluate(data: RunData): Evaluation {
  const { settings } = data;
  const checks: Check[] = [];
  const requests = data.edge.requests.filter((request) => request.at >= data.runStart);
  const reads = requests.filter((request) => request.kind === 'read');

  // Filing → push: the first message a device accepted, not a digest (a digest is a held push, late on purpose).
  const published = new Map(data.filings.map((filing) => [filing.rceptNo, filing]));
  const firstPush = new Map<string, number>();
  for (const message of data.messages) {
    if (message.answer !== 'OK' || message.digest || !published.has(message.rceptNo)) continue;
    if (!firstPush.has(message.rceptNo)) firstPush.set(message.rceptNo, message.at);
  }
  const pushLatency = data.filings
    .filter((filing) => firstPush.has(filing.rceptNo))
    .map((filing) => ({ publishedAt: filing.publishedAt, ms: firstPush.get(filing.rceptNo)! - filing.publishedAt }));

  // Recovery: 10 s buckets; back once two in a row have reads and pushes within their targets and no error.
  const healthy = (from: number) => {
    const to = from + BUCKET_MS;
    const inBucket = reads.filter((request) => request.at >= from && request.at < to && !isError(request));
    if (requests.some((request) => request.at >= from && request.at < to && isError(request))) return false;
    if (inBucket.length > 0 && percentile(durations(inBucket), 0.99) >= settings.readP99TargetMs) return false;
    const pushes = pushLatency.filter((push) => push.publishedAt >= from - 2 * BUCKET_MS && push.publishedAt < to);
    return pushes.length === 0 || percentile(durations(pushes), 0.5) < settings.pushP50TargetMs;
  };
  const faults: FaultOutcome[] = data.faults.map((fault) => {
    let recoveryMs: number | null = null;
    for (let from = fault.end; from + 2 * BUCKET_MS <= data.runEnd; from += BUCKET_MS) {
      if (healthy(from) && healthy(from + BUCKET_MS)) {
        recoveryMs = from - fault.end;
        break;
      }
    }
    const during = requests.filter((request) => overlaps(request, fault.start, fault.end + settings.settleMs));
    const errors = during.filter(isError);
    const duringReads = during.filter((request) => request.kind === 'read' && !isError(request));
    const pushes = pushLatency.filter((push) => push.publishedAt >= fault.start && push.publishedAt <= fault.end);
    return {
      fault,
      errors: errors.length,
      allowedErrors: errors.filter((request) => allowedBy(fault, request)).length,
      readP99DuringMs: percentile(durations(duringReads), 0.99),
      pushP50DuringMs: percentile(durations(pushes), 0.5),
      recoveryMs,
    };
  });
  /** Each fault's span including the time it took to recover (to the end of the run if it did not). */
  const disturbed = faults.map((outcome) => ({
    from: outcome.fault.start,
    to: outcome.fault.end + (outcome.recoveryMs ?? data.runEnd - outcome.fault.end),
  }));
  const undisturbed = (from: number, to: number) => disturbed.every((span) => to < span.from || from > span.to);

  // 1. Filings stored once, analysed once, with a one-liner; model calls bounded.
  {
    const missing = data.filings.filter((filing) => !data.db.disclosures.has(filing.rceptNo));
    const notCompleted = data.filings.filter((filing) => {
      const analysis = data.db.analyses.get(filing.rceptNo);
      return analysis?.status !== 'COMPLETED' || !analysis.oneLiner;
    });
    const statuses = new Map<string, number>();
    for (const filing of notCompleted) {
      const status = data.db.analyses.get(filing.rceptNo)?.status ?? 'no analysis';
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    checks.push({
      name: 'every published filing stored, once',
      expected: `${int(data.filings.length)} filings in \`disclosures\``,
      observed: `${int(data.filings.length - missing.length)} stored${missing.length > 0 ? `, ${missing.length} missing (e.g. ${missing[0].rceptNo})` : ''}`,
      pass: missing.length === 0,
    });
    checks.push({
      name: 'every filing analysed, with its one-liner',
      expected: 'COMPLETED with a one-liner, all of them',
      observed:
        notCompleted.length === 0
          ? `${int(data.filings.length)} COMPLETED`
          : `${int(notCompleted.length)} not: ${[...statuses].map(([status, n]) => `${n} ${status}`).join(', ')} (e.g. ${notCompleted[0].rceptNo})`,
      pass: notCompleted.length === 0,
    });

    const calls = data.modelCalls.filter((call) => call.rceptNo !== null && published.has(call.rceptNo));
    const crashes = data.lives.filter((life) => life.end?.kind !== 'stopped' && life.endedAt !== undefined).map((life) => life.endedAt!);
    const outages = data.faults.filter((fault) => fault.kind === 'postgres');
    /** A valid answer whose caller died, or whose database went away, while it was asked or before the answer could be stored. */
    const lostAnswer = (call: { at: number; answeredAt?: number; instance: number }) => {
      const until = (call.answeredAt ?? call.at) + RECORD_WINDOW_MS;
      return (
        data.lives.some(
          (life) => life.index === call.instance && life.end?.kind !== 'stopped' && life.endedAt! >= call.at && life.endedAt! <= until,
        ) || outages.some((fault) => fault.start <= until && fault.end >= call.at)
      );
    };
    const failed = calls.filter((call) => call.outcome !== 'valid' || lostAnswer(call));
    const validByFiling = new Map<string, number>();
    for (const call of calls) {
      if (call.outcome !== 'valid' || call.answeredAt === undefined || lostAnswer(call)) continue;
      validByFiling.set(call.rceptNo!, (validByFiling.get(call.rceptNo!) ?? 0) + 1);
    }
    const twice = [...validByFiling].filter(([, n]) => n > 1);
    const analysed = data.filings.filter((filing) => data.db.analyses.get(filing.rceptNo)?.status === 'COMPLETED').length;
    checks.push({
      name: 'model calls: no more than filings plus retries of failed calls',
      expected: `≤ ${int(analysed)} + ${int(failed.length)} failed = ${int(analysed + failed.length)}; no filing given two valid answers`,
      observed:
        `${int(calls.length)} calls (${int(calls.filter((call) => call.outcome === 'hang').length)} timed out, ` +
        `${int(calls.filter((call) => call.outcome === 'invalid-json').length)} invalid JSON, ${int(failed.filter((call) => call.outcome === 'valid').length)} valid but lost to a crash or outage); ` +
        `${twice.length} filings analysed twice` +
        (twice.length > 0 ? ` (e.g. ${twice[0][0]}: ${twice[0][1]} valid answers)` : ''),
      pass: calls.length <= analysed + failed.length && twice.length === 0,
      notes: [
        `${int(data.modelCalls.length - calls.length)} calls for filings from before the run or whose prompt named no soak filing`,
        `${crashes.length} instance deaths considered`,
      ],
    });
  }

  // 2. Pushes: exactly one per filing and device that stayed a watcher's; none after a token left, none after UNREGISTERED.
  {
    const { owners, watches, tokensEverOf, watchersEverOf } = buildTimelines(data.seeded, data.edge.journal, data.unregisteredAt, {
      owners: data.db.finalOwners,
      watches: data.db.finalWatches,
    });
    const eps = settings.inflightMs;
    const end = data.drainEnd;
    /** Deliveries a device accepted, per token and filing: the message of the filing itself, or its place in a digest. */
    const accepted = new Map<string, Array<{ at: number; instance: number; collapseKey: string; digest: boolean }>>();
    const add = (token: string, rceptNo: string, entry: { at: number; instance: number; collapseKey: string; digest: boolean }) => {
      const key = `${token}|${rceptNo}`;
      const list = accepted.get(key);
      if (list) list.push(entry);
      else accepted.set(key, [entry]);
    };
    const digestsTo = new Map<string, Array<{ at: number; instance: number }>>();
    for (const message of data.messages) {
      if (message.answer !== 'OK' || !published.has(message.rceptNo)) continue;
      const digest = message.digest;
      add(message.token, message.rceptNo, { at: message.at, instance: message.instance, collapseKey: message.collapseKey, digest });
      if (digest) {
        const list = digestsTo.get(message.token);
        if (list) list.push({ at: message.at, instance: message.instance });
        else digestsTo.set(message.token, [{ at: message.at, instance: message.instance }]);
      }
    }
    // A filing folded into a digest (DIGESTED) reached the device with the first digest sent to it afterwards.
    const rowOf = new Map<string, { user: number; status: string }>();
    let digestedUnsent = 0;
    for (const row of data.db.deliveries) {
      rowOf.set(`${row.fcm_token}|${row.rcept_no}`, { user: row.user_id, status: row.status });
      if (row.status !== 'DIGESTED' || data.doomed(row.fcm_token)) continue;
      const carrier = digestsTo.get(row.fcm_token)?.find((digest) => digest.at >= row.created_at.getTime());
      if (carrier) add(row.fcm_token, row.rcept_no, { ...carrier, collapseKey: '', digest: true });
      else digestedUnsent += 1;
    }

    let owed = 0;
    let delivered = 0;
    let excused = 0;
    const missed: string[] = [];
    const missedStatuses = new Map<string, number>();
    const duplicates: string[] = [];
    let repeatsAfterCrash = 0;
    const crashOrOutageAfter = (at: number, instance: number) =>
      data.lives.some(
        (life) => life.index === instance && life.end?.kind === 'killed' && life.endedAt! >= at && life.endedAt! <= at + RECORD_WINDOW_MS,
      ) || data.faults.some((fault) => fault.kind === 'postgres' && fault.start >= at - 1_000 && fault.start <= at + RECORD_WINDOW_MS);
    for (const filing of data.filings) {
      const from = filing.publishedAt - eps;
      for (const user of watchersEverOf.get(filing.corpCode) ?? []) {
        const watchedKey = watchKey(user, filing.corpCode);
        for (const token of tokensEverOf.get(user) ?? []) {
          if (data.doomed(token)) continue;
          const copies = accepted.get(`${token}|${filing.rceptNo}`) ?? [];
          const until = copies.length > 0 ? copies[0].at : end;
          if (!owners.holdsOver(token, from, until, user) || !watches.holdsOver(watchedKey, from, until, 'on')) {
            // Not owed; counted as left out when it was at the publication and a change (or a doubt) came before the delivery.
            if (owners.valueAt(token, from) === user && watches.valueAt(watchedKey, from) === 'on') excused += 1;
            continue;
          }
          owed += 1;
          if (copies.length === 0) {
            const status = rowOf.get(`${token}|${filing.rceptNo}`)?.status ?? 'no delivery';
            missedStatuses.set(status, (missedStatuses.get(status) ?? 0) + 1);
            if (missed.length < 5) missed.push(`${filing.rceptNo} → user ${user}, ${token} (${status})`);
            continue;
          }
          delivered += 1;
          if (copies.length > 1) {
            const [first, second] = copies;
            if (first.collapseKey === second.collapseKey && crashOrOutageAfter(first.at, first.instance)) repeatsAfterCrash += 1;
            else duplicates.push(`${filing.rceptNo} → ${token}: ${copies.length} copies`);
          }
        }
      }
    }
    checks.push({
      name: 'each watcher with notifications on gets exactly one message (or digest entry) per filing, on each device that stayed theirs',
      expected: `${int(owed)} deliveries, each once`,
      observed:
        `${int(delivered)} delivered, ${int(owed - delivered)} missed` +
        (missedStatuses.size > 0 ? ` (${[...missedStatuses].map(([status, n]) => `${int(n)} ${status}`).join(', ')})` : '') +
        `, ${duplicates.length} twice` +
        (repeatsAfterCrash > 0 ? `; ${repeatsAfterCrash} repeats after a crash or outage with the same collapse key (not counted)` : ''),
      pass: owed === delivered && duplicates.length === 0,
      notes: [
        ...missed.map((line) => `missed: ${line}`),
        ...duplicates.slice(0, 5).map((line) => `twice: ${line}`),
        `${int(excused)} (filing, device) pairs owed at the publication left out because the token, the watch entry or notify_enabled changed (or came in doubt) before the delivery`,
        ...(digestedUnsent > 0 ? [`${digestedUnsent} DIGESTED deliveries with no digest sent to their device afterwards`] : []),
      ],
    });

    // Messages a device should not have got: the delivery was meant for a user (its row), and from
    // `eps` before the hand-over until the hand-over that user certainly no longer held the token,
    // or certainly no longer watched the company with notifications on.
    const wrong = { deleted: [] as string[], moved: [] as string[], unwatched: [] as string[] };
    for (const [key, copies] of accepted) {
      const [token, rceptNo] = key.split('|');
      const filing = published.get(rceptNo)!;
      const row = rowOf.get(key);
      if (row === undefined) continue;
      for (const copy of copies) {
        const at = copy.at - eps;
        const since = (changed: number | undefined) => (changed === undefined ? '' : ` since +${seconds(changed - data.runStart)}`);
        const line =
          `${rceptNo} (published +${seconds(filing.publishedAt - data.runStart)}) → ${token} at +${seconds(copy.at - data.runStart)}` +
          `${copy.digest ? ' in a digest' : ''}, by instance ${copy.instance}, meant for user ${row.user}, delivery now ${row.status}`;
        if (owners.excludesOver(token, at, copy.at, row.user)) {
          const owner = owners.valueAt(token, at);
          const change = since(owners.changedAt(token, at));
          if (owner === null) wrong.deleted.push(`${line}: the token was deleted${change}`);
          else wrong.moved.push(`${line}: the token was user ${String(owner)}'s${change}`);
        } else if (watches.excludesOver(watchKey(row.user, filing.corpCode), at, copy.at, 'on')) {
          const state = watches.valueAt(watchKey(row.user, filing.corpCode), at);
          wrong.unwatched.push(
            `${line}: the user had ${state === 'off' ? 'muted' : 'unwatched'} ${filing.corpCode}${since(watches.changedAt(watchKey(row.user, filing.corpCode), at))}`,
          );
        }
      }
    }
    checks.push({
      name: 'no message to a token after it was deleted or moved to another account, or for a company its user no longer watched with notifications on',
      expected: `0 (a change counts once answered more than ${seconds(eps)} before the hand-over)`,
      observed: `${wrong.deleted.length} after deletion, ${wrong.moved.length} after a move, ${wrong.unwatched.length} after unwatch or mute`,
      pass: wrong.deleted.length + wrong.moved.length + wrong.unwatched.length === 0,
      notes: [...wrong.deleted.slice(0, 3), ...wrong.moved.slice(0, 3), ...wrong.unwatched.slice(0, 3)],
    });

    const afterUnregistered: string[] = [];
    for (const message of data.messages) {
      const at = data.unregisteredAt.get(message.token);
      if (at !== undefined && message.at > at + eps) afterUnregistered.push(`${message.token} at +${seconds(message.at - at)}`);
    }
    checks.push({
      name: 'no message to a token after it was reported UNREGISTERED',
      expected: `0 (${seconds(eps)} allowed for batches already in flight)`,
      observed: `${afterUnregistered.length} (${data.unregisteredAt.size} tokens reported UNREGISTERED)`,
      pass: afterUnregistered.length === 0,
      notes: afterUnregistered.slice(0, 3),
    });
  }

  // 3. Quota and ad rewards.
  {
    const journal = data.edge.journal;
    const revealed = new Set(data.db.revealed.map((row) => `${row.user_id}|${row.rcept_no}`));
    const reveals = journal.filter((entry) => entry.op === 'reveal' && entry.status === 200);
    const lost = reveals.filter((entry) => !revealed.has(`${entry.user}|${entry.rceptNo}`));
    const revealedOf = new Map<number, Array<{ rceptNo: string; at: number }>>();
    for (const row of data.db.revealed) {
      const list = revealedOf.get(row.user_id) ?? [];
      list.push({ rceptNo: row.rcept_no, at: row.revealed_at.getTime() });
      revealedOf.set(row.user_id, list);
    }
    const rewardsOf = new Map<number, number[]>();
    for (const row of data.db.adRewards) rewardsOf.set(row.user_id, [...(rewardsOf.get(row.user_id) ?? []), row.granted_at.getTime()]);
    const quotaOf = new Map(data.db.quota.map((row) => [row.user_id, row]));
    const mismatched: string[] = [];
    for (const user of new Set([...revealedOf.keys(), ...rewardsOf.keys(), ...quotaOf.keys()])) {
      const row = quotaOf.get(user);
      const weekStart = row?.week_start.getTime() ?? 0;
      const charged = (revealedOf.get(user) ?? []).filter((each) => each.at >= weekStart && !data.db.shortFilings.has(each.rceptNo)).length;
      const rewarded = (rewardsOf.get(user) ?? []).filter((at) => at >= weekStart).length;
      const expected = charged - rewarded;
      if ((row?.weekly_used ?? 0) !== expected)
        mismatched.push(
          `user ${user}: weekly_used ${row?.weekly_used ?? 'no row'}, ${charged} charged reveals − ${rewarded} rewards = ${expected}`,
        );
    }
    checks.push({
      name: 'no reveal lost, no quota charged twice',
      expected: 'every reveal answered 200 stored; weekly_used = charged reveals − ad rewards, for every user',
      observed: `${int(reveals.length)} reveals answered 200, ${lost.length} lost; ${mismatched.length} of ${int(quotaOf.size)} quota rows off`,
      pass: lost.length === 0 && mismatched.length === 0,
      notes: [...lost.slice(0, 3).map((entry) => `lost: user ${entry.user} ${entry.rceptNo}`), ...mismatched.slice(0, 3)],
    });

    const callbacks = journal.filter((entry) => entry.op === 'ad-callback');
    const grantedBy = new Map<string, number>();
    for (const entry of callbacks) if (entry.granted === true) grantedBy.set(entry.txId!, (grantedBy.get(entry.txId!) ?? 0) + 1);
    const twice = [...grantedBy].filter(([, n]) => n > 1);
    const stored = new Set(data.db.adRewards.map((row) => row.transaction_id));
    const unstored = [...grantedBy.keys()].filter((txId) => !stored.has(txId));
    const transactions = new Set(callbacks.map((entry) => entry.txId));
    checks.push({
      name: 'no ad reward granted twice (callbacks repeated, some at once through different instances)',
      expected: 'each transaction granted at most once, and every grant stored',
      observed: `${int(callbacks.length)} callbacks for ${int(transactions.size)} transactions: ${int(grantedBy.size)} granted, ${twice.length} twice, ${unstored.length} granted but not stored`,
      pass: twice.length === 0 && unstored.length === 0,
    });
  }

  // 4. Errors: no 5xx outside the fault windows; inside the database outage only 503 with Retry-After.
  {
    const outside: RequestRecord[] = [];
    const disallowedInside: Array<{ request: RequestRecord; fault: FaultWindow }> = [];
    for (const request of requests.filter(isError)) {
      const within = data.faults.filter((fault) => overlaps(request, fault.start, fault.end + settings.settleMs));
      if (within.length === 0) outside.push(request);
      else if (!within.some((fault) => allowedBy(fault, request))) disallowedInside.push({ request, fault: within[0] });
    }
    const describe = (request: RequestRecord) =>
      `${request.route} → ${request.status === 0 ? 'no answer' : request.status}${request.status === 503 && !request.retryAfter ? ' without Retry-After' : ''} at +${seconds(request.at - data.runStart)}`;
    const grouped = (list: RequestRecord[]) => {
      const counts = new Map<string, number>();
      for (const request of list) {
        const key = `${request.route} → ${request.status === 0 ? 'no answer' : request.status}${request.status === 503 && !request.retryAfter ? ' (no Retry-After)' : ''}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      return [...counts].sort((a, b) => b[1] - a[1]).map(([key, n]) => `${n} × ${key}`);
    };
    checks.push({
      name: 'no 5xx outside the fault windows',
      expected: `0 (a window lasts until ${seconds(settings.settleMs)} after its fault ends)`,
      observed: `${outside.length} of ${int(requests.length)} requests`,
      pass: outside.length === 0,
      notes: grouped(outside).slice(0, 6),
    });
    checks.push({
      name: 'inside the fault windows only the errors the fault explains (database outage: 503 with Retry-After)',
      expected:
        'database: 503 + Retry-After; killed instance: the proxy’s 502 for requests in flight; disclosure system: 503 + Retry-After on company pages',
      observed: `${disallowedInside.length} other errors`,
      pass: disallowedInside.length === 0,
      notes: [
        ...grouped(disallowedInside.map((each) => each.request)).slice(0, 6),
        ...disallowedInside.slice(0, 2).map((each) => `e.g. ${describe(each.request)} during ${each.fault.label}`),
      ],
    });
  }

  // 5. Latency outside the faults, and recovery.
  {
    const calm = reads.filter((request) => !isError(request) && undisturbed(request.at, request.at + request.ms));
    const readP99 = percentile(durations(calm), 0.99);
    checks.push({
      name: 'read p99 outside the fault windows (and their recovery)',
      expected: `< ${settings.readP99TargetMs} ms`,
      observed: `${ms(readP99)} over ${int(calm.length)} reads (p50 ${ms(percentile(durations(calm), 0.5))})`,
      pass: readP99 < settings.readP99TargetMs,
    });
    const calmPushes = pushLatency.filter((push) => undisturbed(push.publishedAt, push.publishedAt + push.ms));
    const pushP50 = percentile(durations(calmPushes), 0.5);
    checks.push({
      name: 'filing → push p50 outside the fault windows (and their recovery)',
      expected: `< ${seconds(settings.pushP50TargetMs)}`,
      observed: `${seconds(pushP50)} over ${int(calmPushes.length)} filings (p95 ${seconds(percentile(durations(calmPushes), 0.95))})`,
      pass: pushP50 < settings.pushP50TargetMs,
    });
    // Not back within the bound; a fault too close to the end of the run to tell is reported, not failed.
    const bound = settings.recoveryMs;
    const late = faults.filter((outcome) =>
      outcome.recoveryMs === null ? data.runEnd - outcome.fault.end > bound : outcome.recoveryMs > bound,
    );
    checks.push({
      name: 'back within both targets after each fault',
      expected: `within ${seconds(bound)} of its end`,
      observed: faults
        .map(
          (outcome) =>
            `${outcome.fault.label}: ${outcome.recoveryMs === null ? `not within the run (${seconds(data.runEnd - outcome.fault.end)} left)` : seconds(outcome.recoveryMs)}`,
        )
        .join('; '),
      pass: late.length === 0,
    });
  }

  // 6. The disclosure system's budget; singleton jobs.
  {
    const perDay = new Map<string, number>();
    for (const call of data.upstream) {
      const day = new Date(call.at + 9 * 3_600_000).toISOString().slice(0, 10).replaceAll('-', '');
      perDay.set(day, (perDay.get(day) ?? 0) + 1);
    }
    let maxMinute = 0;
    const times = data.upstream.map((call) => call.at).sort((a, b) => a - b);
    for (let i = 0, j = 0; i < times.length; i++) {
      while (times[i] - times[j] >= 60_000) j++;
      maxMinute = Math.max(maxMinute, i - j + 1);
    }
    const granted = data.db.dartBudget.reduce((sum, day) => sum + day.used, 0);
    const busiest = Math.max(0, ...perDay.values());
    checks.push({
      name: 'the disclosure system’s budget never exceeded, every call within it',
      expected: `≤ ${int(settings.dartPerDay)} a KST day, ≤ ${int(settings.dartPerMinute)} in any 60 s; calls ≤ slots granted`,
      observed: `${int(data.upstream.length)} calls (busiest day ${int(busiest)}, busiest minute ${int(maxMinute)}); ${int(granted)} slots granted`,
      pass: busiest <= settings.dartPerDay && maxMinute <= settings.dartPerMinute && data.upstream.length <= granted,
      notes: [...perDay].map(([day, n]) => `${day}: ${int(n)} calls`),
    });

    const intervals = new Map<string, Array<{ life: string; from: number; to: number }>>();
    for (const life of data.lives) {
      const name = `instance ${life.index} (life ${life.life})`;
      const lifeEnd = life.endedAt ?? data.drainEnd;
      life.held.forEach((change, i) => {
        const to = life.held[i + 1]?.at ?? lifeEnd;
        for (const job of change.jobs) {
          const list = intervals.get(job) ?? [];
          list.push({ life: name, from: change.at, to });
          intervals.set(job, list);
        }
      });
    }
    const overlapsFound: string[] = [];
    const handovers: string[] = [];
    for (const [job, list] of intervals) {
      list.sort((a, b) => a.from - b.from);
      for (let i = 0; i < list.length; i++) {
        for (let j = i + 1; j < list.length && list[j].from < list[i].to; j++) {
          if (list[j].life !== list[i].life)
            overlapsFound.push(
              `${job}: ${list[i].life} and ${list[j].life} for ${int(Math.min(list[i].to, list[j].to) - list[j].from)} ms`,
            );
        }
      }
      handovers.push(`${job}: ${list.length} holdings`);
    }
    checks.push({
      name: 'each singleton job held by one instance at a time',
      expected: 'no overlap between instances’ holdings (each instance reports its own, sampled every 20 ms)',
      observed: `${overlapsFound.length} overlaps`,
      pass: overlapsFound.length === 0,
      notes: [...overlapsFound.slice(0, 5), handovers.join('; ')],
    });
  }

  // 7. Memory, and instances that ended on their own.
  {
    const warmupEnd = data.runStart + WARMUP.share * data.settings.runMs;
    const lines: string[] = [];
    let bad = 0;
    const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
    for (const life of data.lives) {
      const base = life.memory.filter((sample) => sample.at >= Math.max(warmupEnd, life.startedAt + WARMUP.afterRestartMs));
      const endAt = Math.min(life.endedAt ?? data.runEnd, data.runEnd);
      const last = life.memory.filter((sample) => sample.at <= endAt && sample.at >= endAt - 10_000);
      if (base.length < 5 || last.length === 0 || base[0].at > endAt - 60_000) {
        lines.push(`instance ${life.index} (life ${life.life}): too short to judge`);
        continue;
      }
      // Judged without the Buffers (the HTTP cache's bodies: they fill towards the cache's 64 MB bound
      // over the whole run, whatever the warm-up, so their growth is by design), which are judged
      // against that bound instead: both parts bounded, RSS is.
      const withoutBuffers = (sample: (typeof base)[number]) => sample.rss - (sample.arrayBuffers ?? 0);
      const baseline = median(base.slice(0, 5).map(withoutBuffers));
      const final = median(last.map(withoutBuffers));
      const growth = final / baseline - 1;
      const buffersAtEnd = median(last.map((sample) => sample.arrayBuffers ?? 0));
      if (growth > data.settings.rssGrowthLimit || buffersAtEnd > BUFFERS_BOUND_BYTES) bad += 1;
      // Beside it what RSS is made of: the live heap, the heap V8 holds (RSS also keeps what it took
      // for a burst and has not given back), and Buffers outside the heap (the HTTP cache's bodies, up to 64 MB).
      const heap = (samples: typeof base) =>
        samples[0]?.heapUsed === undefined
          ? ''
          : `, heap used ${mib(median(samples.map((s) => s.heapUsed)))} of ${mib(median(samples.map((s) => s.heapTotal)))}, ` +
            `buffers ${mib(median(samples.map((s) => s.arrayBuffers)))}`;
      const rss = (samples: typeof base) => mib(median(samples.map((sample) => sample.rss)));
      lines.push(
        `instance ${life.index} (life ${life.life}): RSS less Buffers ${mib(baseline)} after warm-up → ${mib(final)} ` +
          `(${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(0)} %); RSS ${rss(base.slice(0, 5))}${heap(base.slice(0, 5))} → ${rss(last)}${heap(last)}`,
      );
    }
    checks.push({
      name: 'each instance’s memory bounded: RSS less its Buffers at the end within 20 % of its level after warm-up, Buffers within the HTTP cache’s bound',
      expected: `growth ≤ ${(data.settings.rssGrowthLimit * 100).toFixed(0)} %; Buffers ≤ ${mib(BUFFERS_BOUND_BYTES)}`,
      observed: lines.join('; '),
      pass: bad === 0,
    });
    const exits = data.lives.filter((life) => life.end?.kind === 'exited');
    checks.push({
      name: 'no instance ends by itself',
      expected: '0 exits other than the soak’s kill -9',
      observed: `${exits.length}${exits.length > 0 ? `: ${exits.map((life) => `instance ${life.index} at +${seconds(life.endedAt! - data.runStart)} (${JSON.stringify(life.end)})`).join(', ')}` : ''}`,
      pass: exits.length === 0,
    });
    checks.push({
      name: 'every queue empty after the load stops',
      expected: `analyses, fan-outs and deliveries settled within ${seconds(data.settings.drainMs)}`,
      observed: data.drained
        ? `settled ${seconds(data.drainEnd - data.runEnd)} after the load stopped`
        : 'still busy when the drain gave up',
      pass: data.drained,
    });
  }

  return {
    checks,
    faults,
    pushLatency,
    summary: {
      requests: requests.length,
      reads: reads.length,
      writes: requests.length - reads.length,
      shed: data.edge.shed,
      messages: data.messages.length,
      messagesOk: data.messages.filter((message) => message.answer === 'OK').length,
    },
  };
}
