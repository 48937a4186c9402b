import type { StockSyncStatus } from '../src/stocks/stock-sync.service';
import type { DartSandbox } from '../local/dart-sandbox/dart-sandbox';

export interface SyncRun {
  mode: 'bootstrap' | 'incremental';
  /** From the POST to the first status poll that shows it finished (polled every 50 ms). */
  wallMs: number;
  /** finished_at - started_at as the service reports them. */
  serviceMs: number;
  final: StockSyncStatus;
  /** Requests the sandbox received during the run, by endpoint. */
  upstreamCalls: Record<string, number>;
}

const POLL_MS = 50;

/** Starts a stock sync through the admin endpoint and polls its status until it has finished. */
export async function runStockSync(
  origin: string,
  adminKey: string,
  mode: 'bootstrap' | 'incremental',
  sandbox: DartSandbox,
  timeoutMs = 300_000,
): Promise<SyncRun> {
  sandbox.control.clearRequests();
  const headers = { 'X-Admin-Key': adminKey };
  const started = performance.now();
  const response = await fetch(`${origin}/api/v1/admin/stocks/sync?mode=${mode}`, { method: 'POST', headers });
  const body = await response.text();
  if (response.status !== 202) throw new Error(`POST stocks/sync?mode=${mode} answered ${response.status}: ${body}`);
  for (;;) {
    const poll = await fetch(`${origin}/api/v1/admin/stocks/sync/status`, { headers });
    const status = (await poll.json()) as StockSyncStatus;
    if (status.status !== 'running') {
      const wallMs = performance.now() - started;
      const upstreamCalls: Record<string, number> = {};
      for (const request of sandbox.control.requests) upstreamCalls[request.path] = (upstreamCalls[request.path] ?? 0) + 1;
      const serviceMs =
        status.started_at && status.finished_at ? Date.parse(status.finished_at) - Date.parse(status.started_at) : Number.NaN;
      return { mode, wallMs, serviceMs, final: status, upstreamCalls };
    }
    if (performance.now() - started > timeoutMs) throw new Error(`the ${mode} stock sync did not finish within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
