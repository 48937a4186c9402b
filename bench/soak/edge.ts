import { createHmac, createPrivateKey, type KeyObject, sign } from 'node:crypto';
import { Agent, createServer, type IncomingMessage, request as httpRequest, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Prng } from '../../local/dart-sandbox/prng';
import { serveRpc } from '../child-rpc';
import {
  type EdgeRequest,
  type EdgeResponses,
  type EdgeResults,
  type EdgeSetup,
  type JournalEntry,
  type JournalOp,
  outcomeOf,
  type RequestRecord,
} from './edge-protocol';
import { WeightedPicker } from './seed';
import { NEW_TOKEN_PREFIX } from './settings';

/**
 * The edge of the soak, in a process of its own: a round-robin HTTP proxy in front of the three
 * instances (as a load balancer: a connection refused goes to the next instance; a request lost
 * mid-way is the proxy's 502), and the users: an open-loop load of reads and writes at steady rates,
 * each write journalled with what it was answered and when, for the checks.
 */

/** Requests in flight beyond which new ones are not sent (counted as shed). */
const MAX_IN_FLIGHT = 400;
const CLIENT_TIMEOUT_MS = 70_000;
const JWT_LIFETIME_S = 7 * 24 * 3600;

let setup: EdgeSetup;
let proxy: Server | undefined;
let proxyUrl = '';
const backendAgent = new Agent({ keepAlive: true, maxSockets: 128 });
const clientAgent = new Agent({ keepAlive: true, maxSockets: 512 });
const downUntil: number[] = [];
let nextBackend = 0;
const proxyStats = { retriedElsewhere: 0, proxyErrors: 0 };

async function startProxy(): Promise<void> {
  setup.backends.forEach((_, i) => (downUntil[i] = 0));
  proxy = createServer((req, res) => void forward(req, res));
  proxy.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => proxy!.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const tried = new Set<number>();
  const attempt = (): void => {
    const now = Date.now();
    const count = setup.backends.length;
    let index = -1;
    for (let step = 0; step < count; step++) {
      const candidate = (nextBackend + step) % count;
      if (!tried.has(candidate) && downUntil[candidate] <= now) {
        index = candidate;
        break;
      }
    }
    if (index === -1) index = [...Array(count).keys()].find((i) => !tried.has(i)) ?? -1;
    if (index === -1) return fail(res, 'no instance accepted the connection');
    nextBackend = (index + 1) % count;
    tried.add(index);
    const upstream = httpRequest(
      { host: '127.0.0.1', port: setup.backends[index], method: req.method, path: req.url, headers: req.headers, agent: backendAgent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (res.headersSent) return void res.destroy();
      // Nothing reached the instance: a load balancer tries the next one.
      if (error.code === 'ECONNREFUSED') {
        downUntil[index] = Date.now() + 1_000;
        proxyStats.retriedElsewhere += 1;
        return attempt();
      }
      fail(res, `the instance went away mid-request (${error.code ?? error.message})`);
    });
    upstream.end(body);
  };
  attempt();
}

function fail(res: ServerResponse, why: string): void {
  proxyStats.proxyErrors += 1;
  res.writeHead(502, { 'Content-Type': 'application/json', 'X-Soak-Proxy': '1' });
  res.end(JSON.stringify({ error: 'Bad Gateway', message: why }));
}

// The users.

interface Answer {
  status: number;
  body: unknown;
}

const requests: RequestRecord[] = [];
const journal: JournalEntry[] = [];
let inFlight = 0;
let shed = 0;
let running = false;
const timers = new Set<NodeJS.Timeout>();

function call(
  kind: 'read' | 'write',
  route: string,
  method: string,
  path: string,
  options: { user?: number; body?: unknown } = {},
): Promise<Answer> {
  const sent = Date.now();
  const started = performance.now();
  inFlight += 1;
  const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
  const headers: Record<string, string> = {};
  // With its length: Node sends no body at all for a DELETE without one.
  if (payload) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) });
  if (options.user !== undefined) headers.Authorization = `Bearer ${jwtFor(options.user)}`;
  const done = new Promise<Answer>((resolve) => {
    const finish = (status: number, body: unknown, retryAfter: boolean, fromProxy: boolean) => {
      inFlight -= 1;
      requests.push({ at: sent, ms: performance.now() - started, kind, route, status, retryAfter, fromProxy });
      resolve({ status, body });
    };
    const req = httpRequest(`${proxyUrl}${path}`, { method, headers, agent: clientAgent, timeout: CLIENT_TIMEOUT_MS }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text === '' ? null : JSON.parse(text);
        } catch {
          // kept as text
        }
        finish(res.statusCode ?? 0, body, res.headers['retry-after'] !== undefined, res.headers['x-soak-proxy'] === '1');
      });
      res.on('error', () => finish(0, null, false, false));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => finish(0, null, false, false));
    req.end(payload);
  });
  return done;
}

const jwts = new Map<number, string>();
function jwtFor(user: number): string {
  let token = jwts.get(user);
  if (token === undefined) {
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const iat = Math.floor(Date.now() / 1000);
    const unsigned = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode({ sub: String(user), iat, exp: iat + JWT_LIFETIME_S })}`;
    token = `${unsigned}.${createHmac('sha256', setup.jwtSecret).update(unsigned).digest('base64url')}`;
    jwts.set(user, token);
  }
  return token;
}

// What the users believe they have: the effects of the writes answered 2xx.
const tokensOf = new Map<number, Set<string>>();
const ownerOf = new Map<string, number>();
const watchesOf = new Map<number, Map<string, boolean>>();
const capacityOf = new Map<number, number>();
/** Tokens and watch entries a write left in doubt (no answer, 5xx): the load leaves them alone from then on. */
const doubtful = new Set<string>();
const doomed = new Set<string>();
const busy = new Set<string>();
const revealedBy = new Map<number, string[]>();
const owesAd: number[] = [];
const replayLater: string[] = [];
const recent: string[] = [];
const summarised: string[] = [];
let prng: Prng;
let companies: WeightedPicker<string>;
let adKey: KeyObject;
let tokenSeq = 0;
let txSeq = 0;

function initialState(): void {
  prng = new Prng(setup.seed);
  companies = new WeightedPicker(setup.listed.corpCode, setup.listed.weight);
  adKey = createPrivateKey(setup.adKeyPem);
  setup.userIds.forEach((user, i) => {
    capacityOf.set(user, setup.capacities[i]);
    tokensOf.set(user, new Set());
    watchesOf.set(user, new Map());
  });
  for (const token of setup.doomed) doomed.add(token);
  setup.tokens.token.forEach((token, i) => {
    ownerOf.set(token, setup.tokens.user[i]);
    tokensOf.get(setup.tokens.user[i])!.add(token);
  });
  setup.watches.user.forEach((user, i) => watchesOf.get(user)!.set(setup.watches.corp[i], setup.watches.notify[i]));
}

const pickUser = () => setup.userIds[prng.int(0, setup.userIds.length - 1)];
const watchKey = (user: number, corp: string) => `w:${user}:${corp}`;

/** Runs `work` with `keys` reserved, so no two writes touch one user, token or entry at once. */
function exclusive(keys: string[], work: () => Promise<void>): boolean {
  if (keys.some((key) => busy.has(key))) return false;
  for (const key of keys) busy.add(key);
  void work().finally(() => {
    for (const key of keys) busy.delete(key);
  });
  return true;
}

function record(entry: Omit<JournalEntry, 'answered' | 'status'>, status: number): JournalEntry {
  const full = { ...entry, status, answered: Date.now() };
  journal.push(full);
  return full;
}

/** A free user not busy; undefined after a few tries. */
function freeUser(accept: (user: number) => boolean = () => true): number | undefined {
  for (let i = 0; i < 20; i++) {
    const user = pickUser();
    if (!busy.has(`u:${user}`) && accept(user)) return user;
  }
  return undefined;
}

type Write = () => boolean;

const WRITES: Array<{ op: JournalOp; weight: number; run: Write }> = [
  { op: 'watch-add', weight: 20, run: watchAdd },
  { op: 'watch-remove', weight: 12, run: watchRemove },
  { op: 'notify', weight: 8, run: notify },
  { op: 'token-register', weight: 10, run: tokenRegister },
  { op: 'token-move', weight: 8, run: tokenMove },
  { op: 'token-delete', weight: 8, run: tokenDelete },
  { op: 'reveal', weight: 18, run: reveal },
  { op: 'ad-callback', weight: 10, run: adCallback },
  { op: 'quiet', weight: 6, run: quiet },
];

function watchAdd(): boolean {
  // Most users add within their capacity; some try beyond it (409).
  const user = freeUser((u) => watchesOf.get(u)!.size < capacityOf.get(u)! || prng.chance(0.05));
  if (user === undefined) return false;
  const corp = companies.pick(prng);
  const key = watchKey(user, corp);
  if (watchesOf.get(user)!.has(corp) || doubtful.has(key)) return false;
  return exclusive([`u:${user}`, key], async () => {
    const sent = Date.now();
    const answer = await call('write', 'POST /watchlist', 'POST', '/api/v1/watchlist', { user, body: { corp_code: corp } });
    record({ op: 'watch-add', user, corp, sent }, answer.status);
    const outcome = outcomeOf(answer.status);
    if (outcome === 'applied') watchesOf.get(user)!.set(corp, true);
    else if (outcome === 'unknown') doubtful.add(key);
  });
}

function watchRemove(): boolean {
  const user = freeUser((u) => watchesOf.get(u)!.size > 0);
  if (user === undefined) return false;
  const corps = [...watchesOf.get(user)!.keys()].filter((corp) => !doubtful.has(watchKey(user, corp)));
  if (corps.length === 0) return false;
  const corp = prng.pick(corps);
  const key = watchKey(user, corp);
  return exclusive([`u:${user}`, key], async () => {
    const sent = Date.now();
    const answer = await call('write', 'DELETE /watchlist/{corp}', 'DELETE', `/api/v1/watchlist/${corp}`, { user });
    record({ op: 'watch-remove', user, corp, sent }, answer.status);
    const outcome = outcomeOf(answer.status);
    if (outcome === 'applied') watchesOf.get(user)!.delete(corp);
    else if (outcome === 'unknown') doubtful.add(key);
  });
}

function notify(): boolean {
  const user = freeUser((u) => watchesOf.get(u)!.size > 0);
  if (user === undefined) return false;
  const corps = [...watchesOf.get(user)!.keys()].filter((corp) => !doubtful.has(watchKey(user, corp)));
  if (corps.length === 0) return false;
  const corp = prng.pick(corps);
  const key = watchKey(user, corp);
  const wanted = !watchesOf.get(user)!.get(corp);
  return exclusive([`u:${user}`, key], async () => {
    const sent = Date.now();
    const answer = await call('write', 'PATCH /watchlist/{corp}/notify', 'PATCH', `/api/v1/watchlist/${corp}/notify`, {
      user,
      body: { notify_enabled: wanted },
    });
    record({ op: 'notify', user, corp, notify: wanted, sent }, answer.status);
    const outcome = outcomeOf(answer.status);
    if (outcome === 'applied') watchesOf.get(user)!.set(corp, wanted);
    else if (outcome === 'unknown') doubtful.add(key);
  });
}

function tokenRegister(): boolean {
  const user = freeUser();
  if (user === undefined) return false;
  const token = `${NEW_TOKEN_PREFIX}${user}-${++tokenSeq}-${prng.digits(8)}`;
  return exclusive([`u:${user}`, `t:${token}`], async () => {
    const sent = Date.now();
    const answer = await call('write', 'POST /push/fcm-token', 'POST', '/api/v1/push/fcm-token', {
      user,
      body: { fcm_token: token, platform: prng.chance(0.4) ? 'ios' : 'android' },
    });
    record({ op: 'token-register', user, token, sent }, answer.status);
    const outcome = outcomeOf(answer.status);
    if (outcome === 'applied') {
      ownerOf.set(token, user);
      tokensOf.get(user)!.add(token);
    } else if (outcome === 'unknown') doubtful.add(`t:${token}`);
  });
}

/** A device signed in by another account: the same token registered by another user. */
function tokenMove(): boolean {
  const from = freeUser((u) => tokensOf.get(u)!.size > 0);
  if (from === undefined) return false;
  const token = prng.pick([...tokensOf.get(from)!]);
  if (doomed.has(token) || doubtful.has(`t:${token}`)) return false;
  const to = freeUser((u) => u !== from);
  if (to === undefined) return false;
  return exclusive([`u:${from}`, `u:${to}`, `t:${token}`], async () => {
    const sent = Date.now();
    const answer = await call('write', 'POST /push/fcm-token (move)', 'POST', '/api/v1/push/fcm-token', {
      user: to,
      body: { fcm_token: token, platform: 'android' },
    });
    record({ op: 'token-move', user: to, from, token, sent }, answer.status);
    const outcome = outcomeOf(answer.status);
    if (outcome === 'applied') {
      tokensOf.get(from)!.delete(token);
      tokensOf.get(to)!.add(token);
      ownerOf.set(token, to);
    } else if (outcome === 'unknown') doubtful.add(`t:${token}`);
  });
}

/** Sign-out on a device. */
function tokenDelete(): boolean {
  const user = freeUser((u) => tokensOf.get(u)!.size > 0);
  if (user === undefined) return false;
  const token = prng.pick([...tokensOf.get(user)!]);
  if (doomed.has(token) || doubtful.has(`t:${token}`)) return false;
  return exclusive([`u:${user}`, `t:${token}`], async () => {
    const sent = Date.now();
    const answer = await call('write', 'DELETE /push/fcm-token', 'DELETE', '/api/v1/push/fcm-token', { user, body: { fcm_token: token } });
    record({ op: 'token-delete', user, token, sent }, answer.status);
    const outcome = outcomeOf(answer.status);
    if (outcome === 'applied') {
      tokensOf.get(user)!.delete(token);
      ownerOf.delete(token);
    } else if (outcome === 'unknown') doubtful.add(`t:${token}`);
  });
}

function reveal(): boolean {
  const user = freeUser();
  if (user === undefined) return false;
  const before = revealedBy.get(user) ?? [];
  // Some reveals repeat one the user made before: it must not be charged again.
  const rceptNo = before.length > 0 && prng.chance(0.2) ? prng.pick(before) : summarised.length > 0 ? prng.pick(summarised) : undefined;
  if (rceptNo === undefined) return false;
  return exclusive([`u:${user}`], async () => {
    const sent = Date.now();
    const answer = await call('write', 'POST /ai/analyze/{rceptNo}/reveal', 'POST', `/api/v1/ai/analyze/${rceptNo}/reveal`, { user });
    const weeklyUsed = (answer.body as { quota?: { weekly_used?: number } } | null)?.quota?.weekly_used;
    record({ op: 'reveal', user, rceptNo, weeklyUsed, sent }, answer.status);
    if (answer.status === 200 && !before.includes(rceptNo)) revealedBy.set(user, [...before, rceptNo]);
    if (answer.status === 429 && (answer.body as { code?: string } | null)?.code === 'QUOTA_EXHAUSTED') owesAd.push(user);
  });
}

/** The signed part of a rewarded-ad callback, as the ad network writes it (parameters in alphabetical order). */
function signedQuery(user: number, txId: string): string {
  const message = [
    'ad_network=5450213213286189855',
    `ad_unit=${setup.adUnit}`,
    'custom_data=reveal%20screen',
    'reward_amount=1',
    'reward_item=Reveal',
    `timestamp=${Date.now()}`,
    `transaction_id=${txId}`,
    `user_id=${user}`,
  ].join('&');
  return `${message}&signature=${sign('sha256', Buffer.from(message, 'utf8'), adKey).toString('base64url')}&key_id=${setup.adKeyId}`;
}

/**
 * A rewarded ad watched: the ad network's callback. Some are delivered twice at once (the network
 * retrying), some again later: a transaction grants one reward whatever happens.
 */
function adCallback(): boolean {
  if (replayLater.length > 0 && prng.chance(0.3)) {
    const query = replayLater.shift()!;
    const user = Number(/user_id=(\d+)/.exec(query)![1]);
    const txId = /transaction_id=([^&]+)/.exec(query)![1];
    void sendCallback(user, txId, query);
    return true;
  }
  const user = owesAd.shift() ?? pickUser();
  const txId = `soak${Date.now().toString(16)}${(++txSeq).toString(16).padStart(6, '0')}`;
  const query = signedQuery(user, txId);
  void sendCallback(user, txId, query);
  if (prng.chance(0.25)) void sendCallback(user, txId, query);
  else if (prng.chance(0.1)) replayLater.push(query);
  return true;
}

async function sendCallback(user: number, txId: string, query: string): Promise<void> {
  const sent = Date.now();
  const answer = await call('write', 'GET /adnet/ssv', 'GET', `/api/v1/adnet/ssv?${query}`);
  const granted = (answer.body as { granted?: boolean } | null)?.granted;
  record({ op: 'ad-callback', user, txId, granted, sent }, answer.status);
}

const kstClock = (ms: number) => {
  const kst = new Date(ms + 9 * 3_600_000);
  return `${String(kst.getUTCHours()).padStart(2, '0')}:${String(kst.getUTCMinutes()).padStart(2, '0')}`;
};

/** Quiet hours switched off, or set to a window that began a minute ago and ends before the run does. */
function quiet(): boolean {
  const user = freeUser();
  if (user === undefined) return false;
  const now = Date.now();
  const room = setup.quietEndLimit - now;
  const body =
    room > 3 * 60_000 && prng.chance(0.5)
      ? { quiet_start: kstClock(now - 60_000), quiet_end: kstClock(now + 2 * 60_000 + prng.next() * (room - 3 * 60_000)) }
      : { quiet_start: null, quiet_end: null };
  if (body.quiet_start !== null && body.quiet_start === body.quiet_end) return false;
  return exclusive([`u:${user}`], async () => {
    const sent = Date.now();
    const answer = await call('write', 'PUT /push/preferences', 'PUT', '/api/v1/push/preferences', { user, body });
    record({ op: 'quiet', user, sent }, answer.status);
  });
}

const READS: Array<{ weight: number; run: () => void }> = [
  { weight: 18, run: () => void readRecent() },
  { weight: 8, run: () => void readSummarised() },
  {
    weight: 10,
    run: () => void call('read', 'GET /disclosures?corpCode=', 'GET', `/api/v1/disclosures?corpCode=${companies.pick(prng)}&limit=20`),
  },
  { weight: 8, run: () => void call('read', 'GET /companies/{corpCode}', 'GET', `/api/v1/companies/${companies.pick(prng)}`) },
  { weight: 4, run: () => void call('read', 'GET /stocks/active', 'GET', '/api/v1/stocks/active') },
  {
    weight: 4,
    run: () => void call('read', 'GET /stocks/search', 'GET', `/api/v1/stocks/search?query=${prng.int(0, 9)}${prng.int(0, 9)}`),
  },
  { weight: 6, run: () => withFiling((r) => call('read', 'GET /disclosures/{rceptNo}', 'GET', `/api/v1/disclosures/${r}`)) },
  { weight: 10, run: () => withFiling((r) => call('read', 'GET /ai/analyze/{rceptNo}', 'GET', `/api/v1/ai/analyze/${r}`)) },
  {
    weight: 5,
    run: () =>
      withFiling((r) => call('read', 'GET /ai/analyze/{rceptNo} (signed in)', 'GET', `/api/v1/ai/analyze/${r}`, { user: pickUser() })),
  },
  {
    weight: 15,
    run: () => void call('read', 'GET /watchlist/disclosures', 'GET', '/api/v1/watchlist/disclosures?limit=20', { user: pickUser() }),
  },
  { weight: 5, run: () => void call('read', 'GET /watchlist', 'GET', '/api/v1/watchlist', { user: pickUser() }) },
  { weight: 4, run: () => void call('read', 'GET /quota', 'GET', '/api/v1/quota', { user: pickUser() }) },
  { weight: 3, run: () => void call('read', 'GET /push/history', 'GET', '/api/v1/push/history', { user: pickUser() }) },
];

function withFiling(read: (rceptNo: string) => Promise<Answer>): void {
  if (recent.length === 0) return void readRecent();
  void read(prng.pick(recent));
}

/** Keeps the newest receipt numbers the feeds showed: what the users open next. */
function remember(list: string[], answer: Answer, limit: number): void {
  if (!Array.isArray(answer.body)) return;
  for (const row of answer.body as Array<{ rcept_no?: string }>) {
    if (typeof row.rcept_no === 'string' && !list.includes(row.rcept_no)) list.push(row.rcept_no);
  }
  if (list.length > limit) list.splice(0, list.length - limit);
}

async function readRecent(): Promise<void> {
  remember(recent, await call('read', 'GET /disclosures/recent', 'GET', '/api/v1/disclosures/recent?limit=20'), 300);
}

async function readSummarised(): Promise<void> {
  remember(summarised, await call('read', 'GET /disclosures?hasSummary=true', 'GET', '/api/v1/disclosures?hasSummary=true'), 300);
}

/** An open-loop stream of arrivals (exponential gaps) at `perSecond`, each running `arrive`. */
function stream(perSecond: number, arrive: () => void): void {
  if (perSecond <= 0) return;
  const next = () => {
    if (!running) return;
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        if (!running) return;
        if (inFlight >= MAX_IN_FLIGHT) shed += 1;
        else arrive();
        next();
      },
      (-Math.log(1 - prng.next()) * 1000) / perSecond,
    );
    timers.add(timer);
  };
  next();
}

function startLoad(): void {
  running = true;
  const reads = new WeightedPicker(
    READS.map((read) => read.run),
    READS.map((read) => read.weight),
  );
  const writes = new WeightedPicker(
    WRITES.map((write) => write.run),
    WRITES.map((write) => write.weight),
  );
  stream(setup.readsPerSecond, () => reads.pick(prng)());
  stream(setup.writesPerSecond, () => {
    // A write whose preconditions found nothing to do is tried as another kind.
    for (let i = 0; i < 5 && !writes.pick(prng)(); i++);
  });
}

async function stopLoad(): Promise<EdgeResults> {
  running = false;
  for (const timer of timers) clearTimeout(timer);
  timers.clear();
  // Every request sent gets its answer (or its timeout) into the record.
  while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  return { requests, journal, shed, proxy: proxyStats };
}

async function handle(request: EdgeRequest): Promise<EdgeResponses[EdgeRequest['kind']]> {
  switch (request.kind) {
    case 'start':
      setup = request.setup;
      initialState();
      await startProxy();
      // Warm the users' view of the feeds before the load.
      await readRecent();
      await readSummarised();
      return { proxyUrl };
    case 'run':
      startLoad();
      return null;
    case 'stop':
      return stopLoad();
  }
}

serveRpc(handle, async () => {
  running = false;
  proxy?.closeAllConnections();
  proxy?.close();
});
