import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** What the double answers: a status, a JSON body and extra headers (Retry-After), or nothing at all (a hung server). */
export type ModelServerAnswer = { status: number; body: unknown; headers?: Record<string, string> } | 'hang';

export interface ModelServerDouble {
  /** Base URL, e.g. http://127.0.0.1:40123 */
  url: string;
  /** Requests received so far, bodies parsed from JSON. */
  requests: RecordedRequest[];
  /** Sets the answer to every following request; a promise answers when it settles (a slow model). */
  answerWith(answer: ModelServerAnswer | ((request: RecordedRequest) => ModelServerAnswer | Promise<ModelServerAnswer>)): void;
  close(): Promise<void>;
}

/**
 * A model API on a loopback port (OpenAI Chat Completions, Anthropic Messages):
 * the real SDKs talk to it over HTTP, the test reads what they sent.
 */
export async function startModelServerDouble(): Promise<ModelServerDouble> {
  const requests: RecordedRequest[] = [];
  let answer: (request: RecordedRequest) => ModelServerAnswer | Promise<ModelServerAnswer> = () => ({
    status: 500,
    body: { error: { message: 'no answer set' } },
  });

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = raw === '' ? null : (JSON.parse(raw) as unknown);
      } catch {
        // kept as text
      }
      const request: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      requests.push(request);
      void Promise.resolve(answer(request)).then((reply) => {
        // A hung server keeps the connection open until the client gives up.
        if (reply === 'hang' || res.destroyed) return;
        res.writeHead(reply.status, { ...reply.headers, 'Content-Type': 'application/json' });
        res.end(JSON.stringify(reply.body));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answerWith(next) {
      answer = typeof next === 'function' ? next : () => next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A successful OpenAI Chat Completions answer carrying `content`. */
export function chatCompletion(content: string): { status: number; body: unknown } {
  return {
    status: 200,
    body: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'double-model',
      choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: 1200, completion_tokens: 300, total_tokens: 1500 },
    },
  };
}
