import 'reflect-metadata';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type BenchApp, type CapturedQuery, startBenchApp } from './app';
import { serveRpc } from './child-rpc';
import type { RequestSplit, ServerRequest, ServerResponses } from './server-protocol';

/** The server under test, in its own process; the bench drives it over IPC (server-protocol.ts). */
let app: BenchApp | undefined;
let capture: { done: Promise<CapturedQuery[]>; release: () => void } | undefined;
let splits: RequestSplit[] | undefined;

function started(): BenchApp {
  if (!app) throw new Error('the server has not been started');
  return app;
}

/** Times each request from its arrival (before Express sees it) to the answer's last byte. */
function onRequest(_request: IncomingMessage, response: ServerResponse): void {
  if (!splits || !app) return;
  const tap = app.tap;
  const arrived = performance.now();
  const sqlBefore = tap.roundTripMs;
  response.once('finish', () => splits?.push({ serverMs: performance.now() - arrived, sqlMs: tap.roundTripMs - sqlBefore }));
}

function serialiseMs(body: string): number {
  const value = JSON.parse(body) as unknown;
  const runs: number[] = [];
  for (let i = 0; i < 301; i++) {
    const t0 = performance.now();
    JSON.stringify(value);
    runs.push(performance.now() - t0);
  }
  return runs.sort((a, b) => a - b)[150];
}

async function handle(request: ServerRequest): Promise<ServerResponses[ServerRequest['kind']]> {
  switch (request.kind) {
    case 'start': {
      if (app) throw new Error('the server is already started');
      app = await startBenchApp(request);
      app.httpServer.prependListener('request', onRequest);
      return { origin: app.origin, adminKey: app.adminKey };
    }
    case 'queries':
      return started().tap.count;
    case 'capture-start': {
      if (capture) throw new Error('a capture is already running');
      let release!: () => void;
      const ended = new Promise<void>((resolve) => (release = resolve));
      capture = { done: started().tap.capture(() => ended), release };
      return null;
    }
    case 'capture-stop': {
      if (!capture) throw new Error('no capture is running');
      const { done, release } = capture;
      capture = undefined;
      release();
      return done;
    }
    case 'clear-http-cache':
      await started().clearHttpCache();
      return null;
    case 'split-start':
      splits = [];
      return null;
    case 'split-stop': {
      const recorded = splits ?? [];
      splits = undefined;
      return recorded;
    }
    case 'serialise':
      return serialiseMs(request.body);
    case 'memory': {
      if (request.collect) (globalThis as { gc?: () => void }).gc?.();
      const usage = process.memoryUsage();
      return { rssBytes: usage.rss, heapUsedBytes: usage.heapUsed };
    }
  }
}

serveRpc(handle, async () => {
  await app?.close();
});
