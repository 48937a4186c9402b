import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
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
async function runTour(commands: string[], env: Record<string, string>, cwd: string): Promise<{ steps: TourStep[]; stderr: string }> {
  const script = ['set -euo pipefail', ...commands.map((command) => `${command}\nprintf '\\n${MARKER}\\n'`)].join('\n');
  const { stdout, stderr } = await promisify(execFile)('bash', ['-c', script], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    timeout: 120_000,
  });
  const outputs = stdout.split(`\n${MARKER}\n`);
  return { steps: commands.map((command, i) => ({ command, output: outputs[i].trim() })), stderr };
}

describe('the README tour, as written, against npm start', () => {
  const { dataDir, running } = serverFixture('briefing-tour-');

  it('every curl of it shows the error body of a failed answer, and every JSON body says so', () => {
    const curls = tourCommands().flatMap((command) => command.split(/(?=\bcurl )/).filter((part) => part.startsWith('curl ')));
    expect(curls.length).toBeGreaterThanOrEqual(15);
    for (const curl of curls) {
      expect(curl).toMatch(/^curl --fail-with-body -sS -w '\\n' /);
      if (/ -d /.test(curl)) expect(curl).toContain("-H 'Content-Type: application/json'");
    }
  });

  it('right after its ready line, from another folder: signs Alice in, reads, reveals, watches, sees the push, makes her max, sets her pushes', async () => {
    const server = startServer({ APP_ENV: 'local', PORT: '0', DATA_DIR: dataDir(), LOG_LEVEL: 'info' });
    running.push(server);
    await waitFor(server, /listening on http:\/\/\S+:\d+/, 120_000);
    // The README says to wait for this line, and to run the export it ends with outside the checkout.
    const [ready, listed, filings, exported] = await waitFor(
      server,
      /ready for the tour: (\d+) listed companies, (\d+) filings .* export (API=\S+ DATA_DIR=\S+)/,
      180_000,
    );
    expect(Number(listed)).toBeGreaterThan(0);
    expect(Number(filings)).toBeGreaterThan(0);
    const env = Object.fromEntries(exported.split(' ').map((pair) => pair.split('=', 2) as [string, string]));
    expect(env.DATA_DIR).toBe(dataDir());
    expect(ready).not.toContain(fs.readFileSync(path.join(dataDir(), 'admin-key'), 'utf8').trim());

    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'briefing-tour-shell-'));
    let steps: TourStep[];
    let stderr: string;
    try {
      ({ steps, stderr } = await runTour(tourCommands(), env, elsewhere));
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
    const api = env.API;
    const outputOf = (command: RegExp, nth = 0) => {
      const matching = steps.filter((step) => command.test(step.command));
      if (matching[nth] === undefined) throw new Error(`no tour command matches ${command}`);
      return matching[nth].output;
    };
    const json = (command: RegExp, nth = 0) => parsed(outputOf(command, nth)) as Record<string, unknown>;
    /** What the tour printed, with what it said on stderr when that is not JSON (the tour's own failure messages). */
    const parsed = (output: string): unknown => {
      try {
        return JSON.parse(output);
      } catch {
        throw new Error(`not JSON: ${JSON.stringify(output)}; the tour's stderr: ${stderr}`);
      }
    };

    expect(parsed(outputOf(/\/disclosures\/recent/))).toHaveLength(3);
    const summary = json(/"\$API\/api\/v1\/ai\/analyze\/\$RCEPT"$/);
    expect(summary).toMatchObject({ status: 'COMPLETED', one_liner: expect.any(String) });
    expect(json(/\/reveal"$/)).toMatchObject({ one_liner: summary.one_liner, result: expect.any(Object), quota: expect.any(Object) });

    const watched = json(/\/api\/v1\/watchlist"$/);
    const corpCode = watched.corp_code as string;
    expect(corpCode).toMatch(/^\d{8}$/);
    expect(watched.stock_code).toMatch(/^\w{6}$/);
    const published = json(/\/sandbox\/filings/);
    expect(published).toMatchObject({ corp_code: corpCode });
    const [message] = parsed(outputOf(/^grep -q "\$NEW_RCEPT" <<< "\$PUSHED" && echo/)) as Array<Record<string, unknown>>;
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

    expect(json(/\/watchlist\/capacity"$/, 0)).toMatchObject({ capacity: 3, used: 1 });
    expect(json(/\/tier"$/)).toMatchObject({ tier: 'max', downgraded_at: null });
    expect(json(/\/watchlist\/capacity"$/, 1)).toMatchObject({ capacity: 100, used: 1 });
    expect(json(/\/push\/preferences"$/, 0)).toEqual({ quiet_start: '22:00', quiet_end: '07:00', time_zone: 'Asia/Seoul' });
    expect(json(/\/notify"$/, 0)).toMatchObject({ corp_code: corpCode, categories: ['periodic', 'major_event'], min_impact: 'medium' });
    // Off again, so that a second run of the tour gets its push at once.
    expect(json(/\/push\/preferences"$/, 1)).toEqual({ quiet_start: null, quiet_end: null, time_zone: 'Asia/Seoul' });
    expect(json(/\/notify"$/, 1)).toMatchObject({ corp_code: corpCode, notify_enabled: true, categories: null, min_impact: null });
  }, 400_000);
});
