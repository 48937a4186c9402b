import * as http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { serveRpc } from './child-rpc';
import type { LoadJob, LoadResult, UrlSource } from './load-protocol';

/** Hands out the URLs of a source, in order, each made unique when the source asks for it. */
class UrlFeed {
  used = 0;

  constructor(private readonly source: UrlSource) {
    if (source.urls.length === 0) throw new Error('a URL source needs at least one URL');
  }

  next(): string {
    const i = this.source.offset + this.used++;
    const url = this.source.urls[i % this.source.urls.length];
    if (this.source.bust === null) return url;
    return `${url}${url.includes('?') ? '&' : '?'}_=${this.source.bust}${i}`;
  }

  get repeated(): number {
    if (this.source.bust !== null || this.source.repeats) return 0;
    const end = this.source.offset + this.used;
    const start = Math.max(this.source.offset, this.source.urls.length);
    return Math.max(0, end - start);
  }
}

class Samples {
  private values = new Float64Array(1 << 16);
  length = 0;
  bytes = 0;
  readonly statuses: Record<string, number> = {};

  add(ms: number, status: number, bytes: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = ms;
    this.bytes += bytes;
    this.statuses[status] = (this.statuses[status] ?? 0) + 1;
  }

  summary(seconds: number, feed: UrlFeed, errors: number, timeouts: number): LoadResult {
    const sorted = this.values.slice(0, this.length).sort();
    const at = (q: number) =>
      sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
    let total = 0;
    for (const value of sorted) total += value;
    return {
      requests: this.length,
      seconds,
      rps: seconds > 0 ? this.length / seconds : 0,
      p50: at(0.5),
      p90: at(0.9),
      p99: at(0.99),
      max: sorted.length === 0 ? 0 : sorted[sorted.length - 1],
      mean: sorted.length === 0 ? 0 : total / sorted.length,
      statuses: this.statuses,
      errors,
      timeouts,
      bytesPerResponse: this.length === 0 ? 0 : this.bytes / this.length,
      warmupRequests: 0,
      used: feed.used,
      repeated: feed.repeated,
    };
  }
}

interface CannonOutcome {
  samples: Samples;
  seconds: number;
  errors: number;
  timeouts: number;
}

function cannon(
  job: LoadJob,
  feed: UrlFeed,
  settings: { durationSec?: number; amount?: number; maxRequests?: number },
): Promise<CannonOutcome> {
  const samples = new Samples();
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: job.origin,
        connections: job.connections,
        ...(settings.amount === undefined ? { duration: settings.durationSec ?? 1 } : { amount: settings.amount }),
        timeout: 10,
        requests: [
          {
            method: 'GET',
            setupRequest: (request) => ({ ...request, path: feed.next() }),
          },
        ],
      },
      (error, result) => {
        if (error) return reject(error instanceof Error ? error : new Error(String(error)));
        resolve({ samples, seconds: (performance.now() - started) / 1000, errors: result.errors, timeouts: result.timeouts });
      },
    );
    instance.on('response', (_client, statusCode: number, resBytes: number, responseTime: number) => {
      samples.add(responseTime, statusCode, resBytes);
      if (settings.maxRequests !== undefined && samples.length === settings.maxRequests) instance.stop();
    });
  });
}

function getOnce(agent: http.Agent, url: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes }));
      response.on('error', reject);
    });
    request.setTimeout(10_000, () => request.destroy(new Error('timeout')));
    request.on('error', reject);
  });
}

/**
 * An open loop at a fixed pace: request i leaves at start + i / rate whatever the answers do,
 * over at most `connections` keep-alive connections, and its latency counts from that moment,
 * so time spent waiting for a free connection is counted too. (autocannon's -R sends each
 * second's requests at once and then waits for the next second: bursts that queue at the server.)
 */
async function paced(job: LoadJob, feed: UrlFeed, rate: number): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: job.connections });
  const samples = new Samples();
  let errors = 0;
  const intervalMs = 1000 / rate;
  const total = Math.max(1, Math.round(job.durationSec * rate));
  const started = performance.now();
  const answers: Promise<void>[] = [];
  try {
    for (let i = 0; i < total; i++) {
      const due = started + i * intervalMs;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      answers.push(
        getOnce(agent, job.origin + feed.next()).then(
          ({ status, bytes }) => samples.add(performance.now() - due, status, bytes),
          () => {
            errors += 1;
          },
        ),
      );
    }
    await Promise.all(answers);
    return samples.summary((performance.now() - started) / 1000, feed, errors, 0);
  } finally {
    agent.destroy();
  }
}

async function run(job: LoadJob): Promise<LoadResult> {
  const feed = new UrlFeed(job.source);
  if (job.kind === 'each') {
    const outcome = await cannon(job, feed, { amount: job.source.urls.length });
    return outcome.samples.summary(outcome.seconds, feed, outcome.errors, outcome.timeouts);
  }
  if (job.kind === 'rate') {
    if (job.rate === undefined) throw new Error('a rate job needs its rate');
    return paced(job, feed, job.rate);
  }
  // One connection and one request at a time is autocannon with one connection: it never pipelines.
  const settings = job.kind === 'sequential' ? { maxRequests: job.maxRequests } : {};
  const cannonJob = job.kind === 'sequential' ? { ...job, connections: 1 } : job;
  const warmup = job.warmupSec > 0 ? await cannon(cannonJob, feed, { ...settings, durationSec: job.warmupSec }) : undefined;
  const outcome = await cannon(cannonJob, feed, { ...settings, durationSec: job.durationSec });
  return {
    ...outcome.samples.summary(outcome.seconds, feed, outcome.errors, outcome.timeouts),
    warmupRequests: warmup?.samples.length ?? 0,
  };
}

serveRpc(run);
