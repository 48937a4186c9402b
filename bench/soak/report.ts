import { machineSection } from '../harness';
import { dayClock, dayHourAt, peakShare } from './day-shape';
import { type Evaluation, WARMUP } from './invariants';
import { durations, percentile, type RunData } from './run-data';

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const seconds = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : '–');
const millis = (ms: number) => (Number.isFinite(ms) ? `${ms < 100 ? ms.toFixed(1) : int(ms)} ms` : '–');
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The invariant table as printed on the console and in the page. */
export function invariantTable(evaluation: Evaluation): string[] {
  return [
    '| invariant | expected | observed | |',
    '| --- | --- | --- | --- |',
    ...evaluation.checks.map(
      (check) => `| ${cell(check.name)} | ${cell(check.expected)} | ${cell(check.observed)} | ${check.pass ? 'pass' : '**FAIL**'} |`,
    ),
  ];
}

/** docs/soak.md: what the soak does, the invariants of its last run, the faults, the chart, the machine, how to run it. */
export function soakPage(data: RunData, evaluation: Evaluation, meta: { totalMs: number; svgName: string }): string {
  const { settings } = data;
  const passed = evaluation.checks.every((check) => check.pass);
  const offset = (at: number) => `+${((at - data.runStart) / 1000).toFixed(0)} s`;
  const day = (at: number) => dayClock(dayHourAt(at - data.runStart, settings.runMs));
  const notes = evaluation.checks.filter((check) => (check.notes ?? []).length > 0);
  const upstreamByInstance = new Map<number, number>();
  for (const call of data.upstream) upstreamByInstance.set(call.instance, (upstreamByInstance.get(call.instance) ?? 0) + 1);
  const requests = data.edge.requests.filter((request) => request.at >= data.runStart);
  const latencies = durations(evaluation.pushLatency);
  return [
    '# Soak: a trading day under faults',
    '',
    'What `npm run soak` does to the whole system, and what its last run found. The whole file, and ' +
      `[${meta.svgName}](${meta.svgName}), are rewritten on each run.`,
    '',
    `Last run: ${new Date(data.runStart).toISOString().replace('T', ' ').slice(0, 16)} UTC, ${(meta.totalMs / 60_000).toFixed(1)} minutes in all ` +
      `(${seconds(settings.runMs)} of load, ${seconds(data.drainEnd - data.runEnd)} of drain). Result: **${passed ? 'every invariant held' : `${evaluation.checks.filter((check) => !check.pass).length} invariant(s) broken`}**.`,
    '',
    '## Invariants',
    '',
    ...invariantTable(evaluation),
    '',
    ...(notes.length > 0
      ? ['Details:', '', ...notes.flatMap((check) => [`- ${check.name}:`, ...check.notes!.map((note) => `  - ${note}`)]), '']
      : []),
    '## Faults',
    '',
    `The database outage was ${data.postgres.outageMethod}. A window lasts from the fault being put in place to its being lifted ` +
      '(a killed instance: until it served again); errors still count as the fault’s for ' +
      `${seconds(settings.settleMs)} after it. Recovery is the time from the fault’s end until two 10 s buckets in a row have reads within ` +
      `p99 ${settings.readP99TargetMs} ms, filings published in them pushed within p50 ${seconds(settings.pushP50TargetMs)}, and no error.`,
    '',
    '| fault | window (run time, modelled day) | errors (explained by the fault) | read p99 during | filing → push p50 during | back within targets after |',
    '| --- | --- | ---: | ---: | ---: | ---: |',
    ...evaluation.faults.map(
      (outcome) =>
        `| ${cell(outcome.fault.label)} | ${offset(outcome.fault.start)} → ${offset(outcome.fault.end)} (${day(outcome.fault.start)}–${day(outcome.fault.end)}) | ` +
        `${int(outcome.errors)} (${int(outcome.allowedErrors)}) | ${millis(outcome.readP99DuringMs)} | ${seconds(outcome.pushP50DuringMs)} | ` +
        `${outcome.recoveryMs === null ? 'not within the run' : seconds(outcome.recoveryMs)} |`,
    ),
    '',
    '## Timeline',
    '',
    `![The run over time: request rate, read p99, filing to push, backlogs, errors and the day's filings, with the fault windows shaded](${meta.svgName})`,
    '',
    '## The run in numbers',
    '',
    '|  |  |',
    '| --- | --- |',
    `| filings published | ${int(data.filings.length)} (${int(data.filings.filter((filing) => filing.listed).length)} by listed companies), ${(peakShare() * 100).toFixed(0)} % planned in the after-close peak (15:30–18:00 of the modelled day) |`,
    `| filing → push | p50 ${seconds(percentile(latencies, 0.5))}, p95 ${seconds(percentile(latencies, 0.95))}, max ${seconds(percentile(latencies, 1))} over ${int(latencies.length)} filings that reached a device |`,
    `| users | ${int(data.seeded.userIds.length)}, ${int(data.seeded.watches.user.length)} watch entries, ${int(data.seeded.tokens.token.length)} tokens, ${int(data.seeded.quietUsers)} with quiet hours |`,
    `| requests | ${int(requests.length)} (${int(requests.filter((request) => request.kind === 'read').length)} reads, ${int(requests.filter((request) => request.kind === 'write').length)} writes), ${int(data.edge.shed)} not sent (over ${int(400)} in flight); the proxy sent ${int(data.edge.proxy.retriedElsewhere)} refused connections to another instance |`,
    `| writes journalled | ${journalCounts(data)} |`,
    `| push messages handed over | ${int(data.messages.length)} (${int(data.messages.filter((message) => message.answer === 'OK').length)} accepted, ${int(data.messages.filter((message) => message.answer === 'UNREGISTERED').length)} UNREGISTERED, ${int(data.messages.filter((message) => message.answer === 'UNAVAILABLE' || message.answer === 'QUOTA_EXCEEDED').length)} refused during the FCM fault) |`,
    `| model calls | ${int(data.modelCalls.length)} |`,
    `| disclosure-system calls | ${int(data.upstream.length)}: ${[...upstreamByInstance]
      .sort((a, b) => a[0] - b[0])
      .map(([index, n]) => `instance ${index} ${int(n)}`)
      .join(', ')} |`,
    `| instance lives | ${data.lives.map((life) => `${life.index}.${life.life}: ${life.end?.kind ?? 'running'}`).join(', ')} |`,
    '',
    '## What it does',
    '',
    `- **PostgreSQL**: the embedded one in a temporary directory, or a database of its own on the server of \`TEST_DATABASE_URL\` (or \`DATABASE_URL\`), dropped at the end. Migrated, then seeded with set-based SQL.`,
    `- **The disclosure system**: the sandbox (${int(settings.companies)} companies) over HTTP, publishing ${int(settings.filings)} filings over ${seconds(settings.runMs)} in the shape of a trading day from 06:00 to 22:00 KST, about half of them after the close (15:30–18:00); each with a readable document that states its receipt number. Each instance reaches it through a pass-through of its own, which counts its calls and can slow them.`,
    '- **The model**: an OpenAI-compatible double over HTTP answering a valid analysis after 1–5 s, with a base URL per instance so each call is attributed to its caller and, through the receipt number in its prompt, to its filing.',
    `- **Push**: a recorder over HTTP standing for FCM (which has no emulator). Each instance starts exactly as production does (\`bootstrap\` of \`src/main.ts\`, with its process fault handlers), in \`APP_ENV=local\` without Firebase, whose recording sender is replaced in that process by a relay that posts each batch to the recorder and returns its answers, classified as the Firebase sender classifies FCM's. ${(settings.unregisteredShare * 100).toFixed(0)} % of the seeded tokens are always UNREGISTERED.`,
    `- **The fleet**: three instances, each a process of its own with production's Node.js flags, every background job on (monitor every ${seconds(settings.monitorIntervalMs)} at any hour, analysis scheduler with ${settings.analysisConcurrency} at once each, push dispatcher, stock sync), \`LEADER_TAKEOVER_MS=${settings.leaderTakeoverMs}\`, \`ANALYSIS_LEASE_MS=${settings.analysisLeaseMs}\`, \`PUSH_LEASE_MS=${settings.pushLeaseMs}\`, the disclosure-system budget ${int(settings.dartPerMinute)} a minute and ${int(settings.dartPerDay)} a day; behind a round-robin proxy that sends a refused connection to the next instance and answers 502 for a request lost mid-way.`,
    `- **Users**: ${int(settings.users)} (70 % free, 22 % pro, 8 % max), their watch entries by a popularity tail, their tokens, ${(settings.quietShare * 100).toFixed(0)} % with quiet hours ending during the run. A separate process sends ${settings.readsPerSecond} reads/s (feeds, company pages, analyses, the personal feed, watchlist, quota, history) and ${settings.writesPerSecond} writes/s (watch add/remove, notify on/off, token register, move to another account and delete, reveals, rewarded-ad callbacks signed like the ad network's, some twice at once, preference changes), open-loop, and journals every write with its answer and times.`,
    '- **Faults**, on a schedule scaled to the run: kill -9 of the instance holding the singleton jobs (twice, the second in the after-close peak), restarted after a while; PostgreSQL away for 15 s; the disclosure system in maintenance (status 800) for a minute, then slow for half a minute; the model timing out or answering cut-off JSON for a minute; FCM answering UNAVAILABLE and QUOTA_EXCEEDED (and failing whole calls) for a minute. Long faults are shortened to 10 % of a short run.',
    "- **The checks**, after the queues settle, from the database, the recorded messages, the model's and the disclosure system's logs, the instances' own reports of the jobs they hold and their memory, and the journal of writes; see below for what counts.",
    '',
    '## What counts',
    '',
    'Where the service’s answer depends on timing, the checks follow these rules.',
    '',
    '- A write’s effect lies somewhere between its sending and its answer. A write without a definite answer (no answer, a 5xx) is the last one the load makes on its token or watch entry, so the state at the end tells whether it took effect; when that cannot tell, the token or entry is in doubt from the write on and left out.',
    `- A (filing, device) pair is owed exactly one message or one place in a digest when the token belonged to the watcher, and the watch entry existed with notifications on, without a break from ${seconds(settings.inflightMs)} before the filing was published until the message arrived (or, if none did, until the queues settled). Tokens the push provider reports UNREGISTERED are never owed anything. A filing folded into a digest (its delivery DIGESTED) counts as reaching the device with the first digest accepted there after the delivery was created; digests are told apart by their title (\`관심 기업 새 공시 N건\`).`,
    `- A message is wrong when the user its delivery was meant for (the delivery row’s \`user_id\`) certainly no longer held the token, or certainly no longer watched the company with notifications on, from ${seconds(settings.inflightMs)} before the message was handed to the provider until it was: a change answered within that time may have raced a batch already claimed.`,
    `- A second accepted copy of a (filing, device) pair with the same collapse key is a documented repeat, not a duplicate, when the instance that handed over the first copy was killed, or the database went away, within ${seconds(30_000)} after it (the outcome could not be recorded, so the lease ran out and the delivery went again).`,
    `- A model call failed when it timed out, answered something that is not an analysis, or answered a valid analysis that its caller could not store (its instance died, or the database went away, within ${seconds(30_000)}); no filing may be given a second valid analysis otherwise.`,
    `- A request is inside a fault’s window when it overlaps the fault or the ${seconds(settings.settleMs)} after it. Errors a fault explains: the database outage, 503 with \`Retry-After\`; a killed instance, the proxy’s 502 for a request that was in flight on it; the disclosure system’s maintenance or slowness, 503 with \`Retry-After\` on a company page not stored yet. Everything else, inside or outside a window, is counted against the service.`,
    `- Latency targets are judged outside every fault and its recovery; a fault has recovered once two 10 s buckets in a row have read p99 below ${settings.readP99TargetMs} ms, filings published in them (or in the 20 s before) pushed within p50 ${seconds(settings.pushP50TargetMs)}, and no error. It must within ${seconds(settings.recoveryMs)} of the fault’s end (a fault closer than that to the end of the run is reported, not judged). Filing → push is from the publication upstream to the first accepted message of the filing that is not a digest.`,
    '- Singleton jobs: each instance reports the jobs it holds whenever they change (read every 20 ms from `SingletonJobs.held()`); a killed instance holds nothing from its kill. Two instances’ holdings of one job must never overlap.',
    `- Memory: each instance’s RSS less its Buffers (\`process.memoryUsage().arrayBuffers\`: the HTTP cache’s bodies, which fill towards the cache’s 64 MB bound over the whole run, whatever the warm-up), the median of its first five one-second samples after the warm-up (the first ${(WARMUP.share * 100).toFixed(0)} % of the run, ${seconds(WARMUP.share * settings.runMs)}, or ${seconds(WARMUP.afterRestartMs)} after a restart: caches, pools and compiled code fill first), against the median of its last 10 s before the load stops; growth beyond ${(settings.rssGrowthLimit * 100).toFixed(0)} % fails, a lower level is fine, and Buffers above 80 MiB fail too at the end (the cache's bound and room for sockets). Raw RSS, the live heap, the heap V8 holds and the Buffers are shown beside it. A life shorter than a minute past its warm-up is not judged.`,
    '',
    ...machineSection(data.postgres.origin),
    '',
    '## How to run',
    '',
    '```sh',
    'npm ci',
    'npm run soak    # compiles bench/ and src/ into dist-bench/ with tsc, then runs dist-bench/bench/soak/main.js',
    '```',
    '',
    'It takes the run (`SOAK_MINUTES`, default 10), a drain of up to `SOAK_DRAIN_S` (default 420 s) and a minute or two to seed and start. ' +
      'The instances log at `SOAK_LOG_LEVEL` (default `warn`) into files named at the start (`instance-<n>.log`). ' +
      'A short run while developing: `SOAK_MINUTES=2 SOAK_FILINGS=200 SOAK_USERS=2000 SOAK_WRITE_DOCS=false npm run soak`. ' +
      'The process exits with 1 when an invariant breaks.',
    '',
    '| variable | default | what |',
    '| --- | --- | --- |',
    '| `SOAK_MINUTES` | 10 | length of the compressed day (load and filings) |',
    '| `SOAK_FILINGS` | 1500 | filings published |',
    '| `SOAK_USERS`, `SOAK_WATCHES`, `SOAK_TOKENS` | 20000, 5 and 2 a user | users, watch entries, push tokens |',
    '| `SOAK_QUIET_SHARE` | 0.08 | users with quiet hours during the run |',
    '| `SOAK_READS_PER_S`, `SOAK_WRITES_PER_S` | 50, 6 | the users’ load |',
    '| `SOAK_COMPANIES` | 115000 | companies of the sandbox |',
    '| `SOAK_UNREGISTERED_SHARE` | 0.02 | seeded tokens FCM no longer knows |',
    '| `SOAK_ANALYSIS_CONCURRENCY`, `SOAK_ANALYSIS_LEASE_MS`, `SOAK_PUSH_LEASE_MS`, `SOAK_LEADER_TAKEOVER_MS`, `SOAK_MONITOR_INTERVAL_MS` | 12, 180000, 60000, 5000, 5000 | the fleet’s settings |',
    '| `SOAK_DART_PER_MINUTE`, `SOAK_DART_PER_DAY`, `SOAK_DART_SLOW_MS` | 1000, 20000, 2000 | the disclosure-system budget, and its slowness in the slow fault |',
    '| `SOAK_READ_P99_MS`, `SOAK_PUSH_P50_MS`, `SOAK_RECOVERY_S`, `SOAK_RSS_GROWTH` | 25, 10000, 180, 0.2 | targets |',
    '| `SOAK_INFLIGHT_MS`, `SOAK_SETTLE_S`, `SOAK_DRAIN_S` | 3000, 10, 420 | the timing rules above |',
    '| `SOAK_SEED` | 2026 | everything random |',
    '| `SOAK_WRITE_DOCS` | true | `false`: print only, leave this page and the chart as they are |',
    '',
    'Each run keeps the instances’ logs, this page, the chart and its raw data (`run.json`) in a temporary folder it names at the start and at the end; ' +
      '`node dist-bench/bench/soak/main.js --evaluate <folder>/run.json [--write-docs]` runs the checks of a recorded run again.',
    '',
  ].join('\n');
}

function journalCounts(data: RunData): string {
  const counts = new Map<string, { ok: number; all: number }>();
  for (const entry of data.edge.journal) {
    const count = counts.get(entry.op) ?? { ok: 0, all: 0 };
    count.all += 1;
    if (entry.status >= 200 && entry.status < 300) count.ok += 1;
    counts.set(entry.op, count);
  }
  return [...counts].map(([op, count]) => `${op} ${int(count.ok)}/${int(count.all)}`).join(', ') + ' (2xx/all)';
}
