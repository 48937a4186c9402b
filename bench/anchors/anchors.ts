import { type ChildProcess, fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { serviceNodeFlags, stopChild } from '../harness';
import type { AnchorBodies, AnchorReady } from './anchor-protocol';

/** The two reference servers, each a process of its own, answering the same bodies as the service. */
export interface Anchors {
  /** A bare NestJS app on Express. */
  nestOrigin: string;
  /** `node:http` with prepared bodies. */
  nodeOrigin: string;
  close(): Promise<void>;
}

/** Starts both anchors with `bodies` (URL as requested → the JSON text the service answered). */
export async function startAnchors(bodies: Record<string, string>): Promise<Anchors> {
  const file = path.join(os.tmpdir(), `bench-anchor-bodies-${process.pid}.json`);
  writeFileSync(file, JSON.stringify({ bodies } satisfies AnchorBodies));
  const nest = await startAnchor('bare-nest-anchor.js', file);
  const node = await startAnchor('node-http-anchor.js', file);
  return {
    nestOrigin: `http://127.0.0.1:${nest.port}`,
    nodeOrigin: `http://127.0.0.1:${node.port}`,
    close: async () => {
      await Promise.all([stopChild(nest.child), stopChild(node.child)]);
    },
  };
}

function startAnchor(script: string, bodiesFile: string): Promise<{ child: ChildProcess; port: number }> {
  // With the service's flags, so that only the code differs between them and the service.
  const child = fork(path.join(__dirname, script), [bodiesFile], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: serviceNodeFlags(),
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message: AnchorReady) => resolve({ child, port: message.port }));
    child.once('exit', (code) => reject(new Error(`anchor ${script} exited (${code}) before listening`)));
  });
}
