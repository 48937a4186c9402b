/**
 * The fastest answer Node.js can give: `node:http` writing a prepared body. One of the
 * two anchors `npm run bench` compares the service's cache hits with. Run as its own
 * process: `node node-http-anchor.js <bodies.json>`; tells its parent the port over IPC.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AnchorBodies, AnchorReady } from './anchor-protocol';

const { bodies } = JSON.parse(readFileSync(process.argv[2], 'utf8')) as AnchorBodies;
const prepared = new Map(Object.entries(bodies).map(([url, json]) => [url, Buffer.from(json, 'utf8')]));

const server = createServer((req, res) => {
  const body = prepared.get(req.url ?? '');
  if (body === undefined) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port } satisfies AnchorReady));
process.on('disconnect', () => server.close(() => process.exit(0)));
