import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

export interface RunningServer {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * `npm start` as a newcomer runs it (node scripts/start.js: build when stale,
 * embedded PostgreSQL in DATA_DIR), driven as a real process.
 */
export function startServer(env: Record<string, string>): RunningServer {
  let output = '';
  const child = spawn(process.execPath, ['scripts/start.js'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))));
  return { child, output: () => output, exited };
}

/**
 * Whether a process runs. A stopped process whose parent has not reaped it yet (a
 * zombie: its state in /proc is Z) has exited, though `kill(pid, 0)` still finds it.
 */
export function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

export async function waitFor(server: RunningServer, pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const match = server.output().match(pattern);
    if (match) return match;
    if (server.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`did not see ${pattern} in the server output:\n${server.output()}`);
}

/**
 * A DATA_DIR for the describe block (reachable by the embedded cluster's account) and
 * the servers it starts: whatever still runs afterwards is stopped, and the folder removed.
 */
export function serverFixture(prefix: string): { dataDir: () => string; running: RunningServer[] } {
  let dataDir = '';
  const running: RunningServer[] = [];
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    fs.chmodSync(dataDir, 0o755);
  });
  afterAll(async () => {
    for (const server of running) {
      if (server.child.exitCode === null && server.child.signalCode === null) {
        server.child.kill('SIGINT');
        await server.exited;
      }
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return { dataDir: () => dataDir, running };
}
