#!/usr/bin/env node
// `npm start`: compiles when dist/ (the service) or dist-local/ (its local stand-ins) is missing
// or older than the sources, then serves with the stand-ins started first.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const service = {
  entry: path.join(root, 'dist', 'src', 'main.js'),
  project: 'tsconfig.build.json',
  outDir: 'dist/',
  sources: ['src', 'migrations', 'ormconfig.ts', 'tsconfig.json', 'tsconfig.build.json', 'package.json'],
};
// The local stand-ins for the outside world (embedded PostgreSQL, disclosure-system sandbox):
// never part of dist/, compiled beside it for local runs only.
const standIns = {
  entry: path.join(root, 'dist-local', 'local', 'local-stand-ins.js'),
  project: 'local/tsconfig.json',
  outDir: 'dist-local/',
  sources: ['local', 'src', 'tsconfig.json', 'package.json'],
};

function newestMtime(target) {
  const full = path.join(root, target);
  if (!fs.existsSync(full)) return 0;
  const stat = fs.statSync(full);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs.readdirSync(full).reduce((newest, name) => Math.max(newest, newestMtime(path.join(target, name))), stat.mtimeMs);
}

function compileWhenStale({ entry, project, outDir, sources }) {
  const builtAt = fs.existsSync(entry) ? fs.statSync(entry).mtimeMs : 0;
  if (builtAt !== 0 && !sources.some((source) => newestMtime(source) > builtAt)) return;
  let tsc;
  try {
    tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
  } catch {
    console.error(`${outDir} is missing or stale and TypeScript is not installed: run \`npm ci\` (with dev dependencies) first.`);
    process.exit(1);
  }
  console.log(`[start] compiling to ${outDir} (${builtAt === 0 ? 'no build yet' : 'sources changed'})`);
  try {
    execFileSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });
  } catch {
    console.error('[start] the service could not start: compiling failed (the compiler errors are above)');
    process.exit(1);
  }
  // tsc skips unchanged outputs; touch the entry so the next start sees a fresh build.
  const now = new Date();
  fs.utimesSync(entry, now, now);
}

compileWhenStale(service);
compileWhenStale(standIns);
require(service.entry).bootstrap(require(standIns.entry).startLocalStandIns);
