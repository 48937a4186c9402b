import type { Client } from 'pg';
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

/**
 * For each read: one uncached request through the running server, the SQL it sent
 * captured at the application's DataSource (so it is the services' text as it is,
 * with the parameters the request produced), then EXPLAIN (ANALYZE, BUFFERS) of each
 * statement, run three times and the last (warm) run kept.
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
        let plan = '';
        try {
          for (let attempt = 0; attempt < 3; attempt++) {
            const result = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${query.sql}`, run.params);
            plan = result.rows.map((row) => row['QUERY PLAN']).join('\n');
          }
        } finally {
          if (run.setting) await client.query(`RESET ${run.setting.name}`);
        }
        plans.push({
          scenario: scenario.name,
          note: run.note,
          url,
          sql: tidy(query.sql),
          params: run.params,
          plan,
          planningMs: timing(plan, 'Planning Time'),
          executionMs: timing(plan, 'Execution Time'),
          variant: run.variant,
        });
      }
    }
  }
  return plans;
}
