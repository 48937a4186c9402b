import type { Client } from 'pg';
import type { CapturedQuery } from './app';
import type { BenchServer } from './server-client';
import type { Scenario } from './scenarios';

export interface QueryPlan {
  scenario: string;
  note: string;
  url: string;
  sql: string;
  params: unknown[];
  plan: string;
  planningMs: number;
  executionMs: number;
  /** An extra EXPLAIN for diagnosis (other parameters or settings), not what the request ran. */
  variant: boolean;
  /**
   * For a statement the service prepares (src/database/prepared-statements.ts): the plan
   * PostgreSQL settled on after five executions, as on each of the pool's connections.
   */
  cachedPlan?: 'generic' | 'custom';
}

/** The SQL text as a reader wants it: the services' common indentation removed, runs of inner spaces collapsed. */
function tidy(sql: string): string {
  const lines = sql
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '');
  const indentOf = (line: string) => line.length - line.trimStart().length;
  const cut = lines.length > 1 ? Math.min(...lines.slice(1).map(indentOf)) : 0;
  return lines
    .map((line, i) => {
      const indent = i === 0 ? 0 : Math.max(0, indentOf(line) - cut);
      return ' '.repeat(indent) + line.trim().replace(/ {2,}/g, ' ');
    })
    .join('\n');
}

function timing(plan: string, label: string): number {
  const match = new RegExp(`${label}: ([0-9.]+) ms`).exec(plan);
  return match ? Number(match[1]) : Number.NaN;
}

/** A parameter as an SQL literal: EXECUTE takes no bound parameters. */
function literal(client: Client, value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return client.escapeLiteral(value instanceof Date ? value.toISOString() : String(value));
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of one statement, three times, the last (warm) run kept. A
 * statement the service prepares is explained as it runs there: prepared under a name,
 * executed five times (after which PostgreSQL chooses between a generic plan and planning
 * each execution), then explained as an EXECUTE.
 */
async function explain(
  client: Client,
  { sql, preparedAs }: CapturedQuery,
  params: unknown[],
  statement: string,
): Promise<{ plan: string; cachedPlan?: 'generic' | 'custom' }> {
  const lines = (rows: { 'QUERY PLAN': string }[]) => rows.map((row) => row['QUERY PLAN']).join('\n');
  let plan = '';
  if (preparedAs === undefined) {
    for (let attempt = 0; attempt < 3; attempt++) {
      plan = lines((await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params)).rows);
    }
    return { plan };
  }
  try {
    for (let execution = 0; execution < 5; execution++) await client.query({ name: statement, text: sql, values: params });
    const execute =
      params.length === 0 ? `EXECUTE ${statement}` : `EXECUTE ${statement}(${params.map((value) => literal(client, value)).join(', ')})`;
    for (let attempt = 0; attempt < 3; attempt++) {
      plan = lines((await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${execute}`)).rows);
    }
    const [{ generic }] = (
      await client.query<{ generic: boolean }>('SELECT generic_plans > 0 AS generic FROM pg_prepared_statements WHERE name = $1', [
        statement,
      ])
    ).rows;
    return { plan, cachedPlan: generic ? 'generic' : 'custom' };
  } finally {
    await client.query(`DEALLOCATE ${statement}`).catch(() => undefined);
  }
}

/**
 * For each read: one uncached request through the running server, the SQL it sent
 * captured at the application's DataSource (so it is the services' text as it is,
 * with the parameters the request produced), then `explain` of each statement.
 */
export async function explainReads(server: BenchServer, client: Client, scenarios: Scenario[]): Promise<QueryPlan[]> {
  const plans: QueryPlan[] = [];
  for (const scenario of scenarios) {
    const url = `${scenario.planUrl}${scenario.planUrl.includes('?') ? '&' : '?'}_=plan`;
    const captured = await server.capture(async () => {
      const response = await fetch(server.origin + url);
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`);
    });
    const reads = captured.filter((query) => /^\s*(SELECT|WITH)\b/i.test(query.sql));
    if (reads.length === 0) throw new Error(`GET ${url} sent no SELECT (was it answered from a cache?)`);
    for (const query of reads) {
      const runs: { note: string; params: unknown[]; setting?: { name: string; value: string }; variant: boolean }[] = [
        { note: scenario.planNote, params: query.params, variant: false },
        ...(scenario.planVariants ?? []).map((variant) => ({
          note: variant.note,
          params: variant.params ? variant.params(query.params) : query.params,
          setting: variant.setting,
          variant: true,
        })),
      ];
      for (const run of runs) {
        if (run.setting) await client.query(`SET ${run.setting.name} = ${run.setting.value}`);
        let explained: Awaited<ReturnType<typeof explain>>;
        try {
          // A statement of its own per run, planned under that run's setting.
          explained = await explain(client, query, run.params, `bench_plan_${plans.length}`);
        } finally {
          if (run.setting) await client.query(`RESET ${run.setting.name}`);
        }
        plans.push({
          scenario: scenario.name,
          note: run.note,
          url,
          sql: tidy(query.sql),
          params: run.params,
          plan: explained.plan,
          planningMs: timing(explained.plan, 'Planning Time'),
          executionMs: timing(explained.plan, 'Execution Time'),
          variant: run.variant,
          cachedPlan: explained.cachedPlan,
        });
      }
    }
  }
  return plans;
}
