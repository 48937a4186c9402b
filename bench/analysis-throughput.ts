/**
 * `npm run bench:analysis`: analyses per minute through the real pipeline (queue
 * claim → document.xml from the sandbox → text → the OpenAI SDK against a local
 * double that answers at once → validated result stored), and the service's own
 * overhead per analysis, at several concurrencies. Results: docs/benchmarks-analysis.md.
 */
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { AnalysesRepository } from '../src/analysis/analyses.repository';
import { AnalysisSchedulerService } from '../src/analysis/analysis-scheduler.service';
import { validAnswer } from '../local/doubles/analysis-answers';
import { startModelServerDouble } from '../local/doubles/model-server-double';
import { AppModule } from '../src/app.module';
import { configureApp } from '../src/app.setup';
import { ServiceExpressAdapter } from '../src/common/http/express-adapter';
import { DisclosureIngestService } from '../src/disclosures/disclosure-ingest.service';
import { createRootLogger } from '../src/logging/root-logger';
import { startDartSandbox } from '../local/dart-sandbox/dart-sandbox';
import { benchConfig } from './app';
import { createLog, envNumber, writeResultsPage } from './harness';
import { startPostgresServer } from '../test/support/postgres-server';
import { createDatabase } from '../test/support/test-database';

const FILINGS = envNumber('BENCH_ANALYSIS_FILINGS', 300, 1, 100_000);
const CONCURRENCIES = [1, 2, 8];

const log = createLog('bench:analysis');

async function main(): Promise<void> {
  const server = await startPostgresServer('bench', log);
  const database = await createDatabase(server.adminUrl, 'briefing_bench');
  const sandbox = await startDartSandbox({ seed: 11, companyCount: 2000, filingsPerBusinessDay: 40 });
  const model = await startModelServerDouble();
  const answer = JSON.stringify(validAnswer());
  model.answerWith(() => ({
    status: 200,
    body: {
      id: 'chatcmpl-bench',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'bench-model',
      choices: [{ index: 0, message: { role: 'assistant', content: answer, refusal: null }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 },
    },
  }));

  // Filings with a document, most recent first; their documents are built once before timing.
  const filings = sandbox.control
    .filings()
    .filter((filing) => sandbox.control.documentOf(filing.rcept_no)?.kind !== 'missing')
    .slice(0, FILINGS);
  for (const filing of filings) await sandbox.control.documentZip(filing.rcept_no);

  const rows: { concurrency: number; perMinute: number; msPerAnalysis: number; modelCalls: number }[] = [];
  try {
    for (const concurrency of CONCURRENCIES) {
      const config = benchConfig({
        DATABASE_URL: database.url,
        DART_API_BASE_URL: sandbox.baseUrl,
        DART_API_KEY: sandbox.apiKey,
        AI_PROVIDER: 'openai',
        OPENAI_BASE_URL: `${model.url}/v1`,
        OPENAI_API_KEY: 'bench',
        OPENAI_MODEL: 'bench-model',
        ANALYSIS_CONCURRENCY: String(concurrency),
      });
      const app = await NestFactory.create<NestExpressApplication>(
        AppModule.forRoot(config, createRootLogger(config)),
        new ServiceExpressAdapter(),
        {
          bodyParser: false,
          logger: false,
        },
      );
      configureApp(app, config);
      await app.init();
      const dataSource = app.get(DataSource);
      await dataSource.query('TRUNCATE disclosures CASCADE');
      await app.get(DisclosureIngestService).saveNew([...filings], 'backfill');

      const calls = model.requests.length;
      const scheduler = app.get(AnalysisSchedulerService);
      const queue = app.get(AnalysesRepository);
      const started = performance.now();
      scheduler.resume();
      while ((await queue.countQueued()) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const elapsed = performance.now() - started;
      scheduler.pause();
      await scheduler.drain();

      const [{ n }] = await dataSource.query<{ n: number }[]>("SELECT count(*)::int AS n FROM analyses WHERE status = 'COMPLETED'");
      if (n !== filings.length) throw new Error(`expected ${filings.length} completed analyses, found ${n}`);
      rows.push({
        concurrency,
        perMinute: Math.round((n / elapsed) * 60_000),
        msPerAnalysis: Number(((elapsed * concurrency) / n).toFixed(1)),
        modelCalls: model.requests.length - calls,
      });
      log(`concurrency ${concurrency}: ${n} analyses in ${(elapsed / 1000).toFixed(1)} s`);
      await app.close();
    }
  } finally {
    await model.close();
    await sandbox.close();
    await database.drop();
    await server.stop();
  }

  const table = [
    '| ANALYSIS_CONCURRENCY | analyses per minute | service time per analysis (ms) | model calls |',
    '|---|---|---|---|',
    ...rows.map((row) => `| ${row.concurrency} | ${row.perMinute} | ${row.msPerAnalysis} | ${row.modelCalls} |`),
  ].join('\n');
  const report = `# Analysis throughput

Measured by \`npm run bench:analysis\` on ${new Date().toISOString().slice(0, 10)}: ${filings.length} sandbox filings with
documents, analysed through the real pipeline (claim from the queue, \`document.xml\` over HTTP from
the in-process sandbox, ZIP and markup to text, the official OpenAI SDK against a loopback double that
answers a valid result at once, schema validation, the conditional completion). Because the model
answers instantly, the time per analysis is the service's own overhead; with a real model, add the
model's latency and divide by the concurrency. Service time per analysis = elapsed × concurrency ÷
analyses. Every filing was analysed exactly once (model calls = filings).

${table}
`;
  await writeResultsPage('benchmarks-analysis.md', () => report, log);
  process.stdout.write(`\n${table}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
    process.exit(1);
  },
);
