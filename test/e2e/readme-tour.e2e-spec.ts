import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { eventually } from '../support/sandboxed-app';
import { serverFixture, startServer, waitFor } from '../support/server-process';

const README = path.resolve(__dirname, '../../README.md');
const MARKER = '@@TOUR-COMMAND-DONE@@';

/** The commands of the README tour: the sh block after the tour comment, continuation lines joined. */
function tourCommands(): string[] {
  const readme = fs.readFileSync(README, 'utf8');
  const block = /<!-- tour: [^>]*-->\n```sh\n([\s\S]*?)\n```/.exec(readme)?.[1];
  if (block === undefined) throw new Error('README.md has no tour block');
  return block
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
}

interface TourStep {
  command: string;
  output: string;
}

/** Runs the commands as written in one bash session, and gives each command its own output. */
async function runTour(commands: string[], env: Record<string, string>): Promise<TourStep[]> {
  const script = ['set -euo pipefail', ...commands.map((command) => `${command}\nprintf '\\n${MARKER}\\n'`)].join('\n');
  const { stdout } = await promisify(execFile)('bash', ['-c', script], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    timeout: 60_000,
  });
  const outputs = stdout.split(`\n${MARKER}\n`);
  return commands.map((command, i) => ({ command, output: outputs[i].trim() }));
}

describe('the README tour, as written, against npm start', () => {
  const { dataDir, running } = serverFixture('briefing-tour-');

  it('signs Alice in, reads, reveals, watches, sees the push and makes her max', async () => {
    const server = startServer({ APP_ENV: 'local', PORT: '0', DATA_DIR: dataDir(), LOG_LEVEL: 'info' });
    running.push(server);
    const [, port] = await waitFor(server, /listening on http:\/\/localhost:(\d+)/, 120_000);
    const api = `http://127.0.0.1:${port}`;
    const adminKey = fs.readFileSync(path.join(dataDir(), 'admin-key'), 'utf8').trim();

    // "Wait about half a minute": the stock master and the first summaries of listed companies.
    await eventually(async () => {
      const sync = (await (await fetch(`${api}/api/v1/admin/stocks/sync/status`, { headers: { 'X-Admin-Key': adminKey } })).json()) as {
        status: string;
      };
      if (sync.status !== 'completed') return false;
      const filings = (await (await fetch(`${api}/api/v1/disclosures?hasSummary=true&limit=20`)).json()) as Array<{ stock_code: string }>;
      return filings.some((filing) => filing.stock_code !== '');
    }, 120_000);

    const commands = tourCommands();
    expect(commands.length).toBeGreaterThanOrEqual(15);
    const steps = await runTour(commands, { API: api, DATA_DIR: dataDir() });
    const outputOf = (command: RegExp, nth = 0) => {
      const matching = steps.filter((step) => command.test(step.command));
      if (matching[nth] === undefined) throw new Error(`no tour command matches ${command}`);
      return matching[nth].output;
    };
    const json = (command: RegExp, nth = 0) => JSON.parse(outputOf(command, nth)) as Record<string, unknown>;

    expect(JSON.parse(outputOf(/\/disclosures\/recent/))).toHaveLength(3);
    const summary = json(/^curl -sf \$API\/api\/v1\/ai\/analyze\/\$RCEPT$/);
    expect(summary).toMatchObject({ status: 'COMPLETED', one_liner: expect.any(String) });
    expect(json(/\/reveal$/)).toMatchObject({ one_liner: summary.one_liner, result: expect.any(Object), quota: expect.any(Object) });

    const watched = json(/\/api\/v1\/watchlist$/);
    const corpCode = watched.corp_code as string;
    expect(corpCode).toMatch(/^\d{8}$/);
    const published = json(/\/sandbox\/filings/);
    expect(published).toMatchObject({ corp_code: corpCode });
    const [message] = JSON.parse(outputOf(/\/admin\/push\/messages/)) as Array<Record<string, unknown>>;
    // The push carries the one-liner; a filing without a readable document goes with its report name.
    const analysis = (await (await fetch(`${api}/api/v1/ai/analyze/${published.rcept_no as string}`)).json()) as {
      status: string;
      one_liner: string;
    };
    expect(['COMPLETED', 'UNAVAILABLE']).toContain(analysis.status);
    expect(message).toMatchObject({
      fcm_token: 'alice-phone',
      platform: 'ios',
      title: published.corp_name,
      body: analysis.status === 'COMPLETED' ? analysis.one_liner : `새 공시: ${published.report_nm as string}`,
      data: { rcept_no: published.rcept_no, corp_code: corpCode },
      outcome: 'sent',
    });

    expect(json(/\/watchlist\/capacity$/, 0)).toMatchObject({ capacity: 3, used: 1 });
    expect(json(/\/tier$/)).toMatchObject({ tier: 'max', downgraded_at: null });
    expect(json(/\/watchlist\/capacity$/, 1)).toMatchObject({ capacity: 100, used: 1 });
  }, 300_000);
});
