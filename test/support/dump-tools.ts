import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { findFreePort } from '../../local/embedded-postgres';

/** pg_dump and pg_restore of one PostgreSQL major version. */
export interface DumpTools {
  pgDump: string;
  pgRestore: string;
  major: number;
}

/** A PostgreSQL server the tools can dump, and how to let it go. */
export interface DumpableServer {
  adminUrl: string;
  tools: DumpTools;
  /** Where it came from, for the test's log. */
  origin: string;
  stop(): Promise<void>;
}

/** Debian's and Ubuntu's layout: one folder per major with the server and its client tools. */
const VERSIONED_INSTALLS = '/usr/lib/postgresql';

/**
 * A server to back up and restore on, with tools that can dump it: pg_dump refuses a server
 * of a newer major than its own, and the embedded PostgreSQL (18) ships no client tools.
 * The test run's server when a pg_dump of its major or newer is installed (TEST_DATABASE_URL
 * at the local PostgreSQL 15, say); otherwise a throwaway cluster started from an installed
 * PostgreSQL whose folder holds both the server and its tools (Debian's postgresql-N).
 */
export async function dumpableServer(runServerUrl: string, log: (line: string) => void): Promise<DumpableServer> {
  const installs = installedTools();
  const runMajor = await serverMajor(runServerUrl);
  const tools = installs.filter((candidate) => candidate.major >= runMajor).sort((a, b) => a.major - b.major)[0];
  if (tools)
    return { adminUrl: runServerUrl, tools, origin: `the test run's server (PostgreSQL ${runMajor})`, stop: async () => undefined };

  const withServer = installs
    .filter((candidate) => path.dirname(candidate.pgDump).startsWith(`${VERSIONED_INSTALLS}/`))
    .filter((candidate) => ['initdb', 'pg_ctl', 'postgres'].every((tool) => isExecutable(path.join(path.dirname(candidate.pgDump), tool))))
    .sort((a, b) => b.major - a.major)[0];
  if (!withServer) {
    const found = installs.map((candidate) => `${candidate.pgDump} (${candidate.major})`).join(', ') || 'none';
    throw new Error(
      `backing up needs pg_dump and pg_restore of PostgreSQL ${runMajor} or newer for the test run's server, or an installed ` +
        `PostgreSQL server with its client tools (Debian: apt-get install postgresql); pg_dump found: ${found}`,
    );
  }
  const cluster = await startThrowawayCluster(path.dirname(withServer.pgDump), log);
  return { ...cluster, tools: withServer, origin: `a throwaway PostgreSQL ${withServer.major} cluster` };
}

/** Every major's pg_dump with its pg_restore beside it: each versioned install's, then the PATH's. */
export function installedTools(): DumpTools[] {
  const versioned = fs.existsSync(VERSIONED_INSTALLS)
    ? fs.readdirSync(VERSIONED_INSTALLS).map((version) => path.join(VERSIONED_INSTALLS, version, 'bin'))
    : [];
  const onPath = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  // Versioned folders first: Debian's /usr/bin/pg_dump is a wrapper that picks a version itself.
  const found = new Map<number, DumpTools>();
  for (const dir of [...versioned, ...onPath]) {
    const pgDump = path.join(dir, 'pg_dump');
    const pgRestore = path.join(dir, 'pg_restore');
    if (!isExecutable(pgDump) || !isExecutable(pgRestore)) continue;
    const major = toolMajor(pgDump);
    if (major !== undefined && !found.has(major)) found.set(major, { pgDump, pgRestore, major });
  }
  return [...found.values()];
}

function toolMajor(file: string): number | undefined {
  try {
    // "pg_dump (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)"
    const match = /\(PostgreSQL\) (\d+)/.exec(execFileSync(file, ['--version'], { encoding: 'utf8', stdio: 'pipe' }));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

async function serverMajor(url: string): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version_num: string }>('SHOW server_version_num');
    return Math.floor(Number(rows[0].server_version_num) / 10_000);
  } finally {
    await client.end();
  }
}

/**
 * initdb and a server on a free loopback port, trust authentication on loopback only, in a
 * temporary folder removed on stop. As root, PostgreSQL runs as the `postgres` account, which
 * the server package creates.
 */
async function startThrowawayCluster(binDir: string, log: (line: string) => void): Promise<{ adminUrl: string; stop(): Promise<void> }> {
  const runAs =
    process.getuid?.() === 0
      ? {
          uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
          gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
        }
      : undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'briefing-dump-pg-'));
  fs.chmodSync(dir, 0o755);
  if (runAs) fs.chownSync(dir, runAs.uid, runAs.gid);
  const dataDir = path.join(dir, 'data');
  const run = (tool: string, args: string[]) => runTool(path.join(binDir, tool), args, runAs);
  try {
    await run('initdb', [`--pgdata=${dataDir}`, '--auth=trust', '--username=postgres', '--encoding=UTF8', '--locale=C']);
    const port = await findFreePort();
    const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`;
    await run('pg_ctl', ['start', '-D', dataDir, '-l', path.join(dir, 'server.log'), '-o', options, '-w', '-t', '30']);
    log(`started a throwaway PostgreSQL from ${binDir} on port ${port}`);
    return {
      adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
      stop: async () => {
        try {
          await run('pg_ctl', ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '30']);
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Runs a tool to completion; a failure carries the last lines it printed. */
export function runTool(file: string, args: string[], runAs?: { uid: number; gid: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    // The postgres account may be unable to enter our working directory.
    const child = spawn(file, args, { ...runAs, cwd: '/', env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve(output);
      else
        reject(
          new Error(
            `${path.basename(file)} ${args[0]} failed (${signal ?? `exit ${code}`}): ${output.trim().split('\n').slice(-5).join(' | ')}`,
          ),
        );
    });
  });
}
