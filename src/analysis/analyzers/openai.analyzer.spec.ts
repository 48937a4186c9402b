import { analysisResultJsonSchema } from './analysis-result.schema';
import { type AnalysisInput, AnalyzerError } from './analyzer';
import { OpenAiAnalyzer } from './openai.analyzer';
import { SYSTEM_PROMPT } from './prompts';
import { validAnswer } from '../../../local/doubles/analysis-answers';
import { SUPPLY_CONTRACT } from '../../../local/doubles/filing-documents';
import { type ModelServerDouble, startModelServerDouble } from '../../../local/doubles/model-server-double';
import { rejectionOf } from '../../../local/doubles/rejection';

/** A Chat Completions answer carrying `content` as the assistant message. */
function completion(content: string | null, extra: { refusal?: string; finish_reason?: string } = {}) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_741_900_000,
    model: 'gpt-4.1-mini-2025-04-14',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: extra.refusal ?? null },
        finish_reason: extra.finish_reason ?? 'stop',
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 1834, completion_tokens: 412, total_tokens: 2246 },
  };
}

const failureOf = (promise: Promise<unknown>) => rejectionOf(promise, AnalyzerError);

describe('OpenAiAnalyzer against an OpenAI-compatible server', () => {
  let server: ModelServerDouble;
  let analyzer: OpenAiAnalyzer;

  beforeAll(async () => {
    server = await startModelServerDouble();
    analyzer = new OpenAiAnalyzer({ baseUrl: `${server.url}/v1`, apiKey: 'sk-test-key', model: 'gpt-4.1-mini' }, { timeoutMs: 1_000 });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
  });

  it('asks for JSON-schema structured output with the Korean prompts, once', async () => {
    server.answerWith({ status: 200, body: completion(JSON.stringify(validAnswer())) });
    await analyzer.analyze(SUPPLY_CONTRACT);

    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe('Bearer sk-test-key');
    const body = request.body as Record<string, unknown>;
    expect(body).toMatchObject({
      model: 'gpt-4.1-mini',
      temperature: 0.2,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'disclosure_analysis', strict: true, schema: analysisResultJsonSchema },
      },
    });
    const messages = body.messages as { role: string; content: string }[];
    expect(messages.map((message) => message.role)).toEqual(['system', 'user']);
    expect(messages[0].content).toBe(SYSTEM_PROMPT);
    expect(messages[0].content).toContain('증권 공시 분석가');
    expect(messages[1].content).toContain('회사: 에이비씨케미칼');
    expect(messages[1].content).toContain('공시: 단일판매ㆍ공급계약체결');
    expect(messages[1].content).toContain('접수일: 2025년 3월 14일');
    expect(messages[1].content).toContain(SUPPLY_CONTRACT.text);
    expect(messages[1].content).not.toContain('일부만');
    // The facts read from the form come before the document, exact numbers with their unit.
    const content = messages[1].content;
    expect(content).toContain('원문의 표와 태그에서 읽은 사실:\n- 계약명: 2차전지 양극재 공급계약\n- 계약금액: 520억원 (52,000,000,000원)');
    expect(content.indexOf('원문의 표와 태그에서 읽은 사실')).toBeLessThan(content.indexOf('<공시원문>'));
  });

  it('tells the model when the document was cut, and which sections were left out', async () => {
    server.answerWith({ status: 200, body: completion(JSON.stringify(validAnswer())) });
    const cut: AnalysisInput = {
      ...SUPPLY_CONTRACT,
      docLength: 250_000,
      truncated: true,
      omittedSections: ['II. 사업의 내용 > 3. 원재료 및 생산설비', 'XII. 상세표'],
    };
    await analyzer.analyze(cut);
    const messages = (server.requests[0].body as { messages: { content: string }[] }).messages;
    expect(messages[1].content).toContain(`250,000자 중 ${cut.text.length.toLocaleString('en-US')}자만`);
    expect(messages[1].content).toContain('분량 때문에 빠진 부분: II. 사업의 내용 > 3. 원재료 및 생산설비, XII. 상세표.');
  });

  it('returns the parsed analysis, its headline as the one-liner, the answering model and the token usage', async () => {
    server.answerWith({ status: 200, body: completion(JSON.stringify(validAnswer())) });
    const output = await analyzer.analyze(SUPPLY_CONTRACT);
    expect(output).toEqual({
      oneLiner: validAnswer().headline,
      result: validAnswer(),
      provider: 'openai',
      model: 'gpt-4.1-mini-2025-04-14',
      usage: { promptTokens: 1834, completionTokens: 412 },
    });
  });

  it('reports missing usage as null (some compatible servers send none)', async () => {
    const { usage: _usage, ...withoutUsage } = completion(JSON.stringify(validAnswer()));
    server.answerWith({ status: 200, body: withoutUsage });
    expect((await analyzer.analyze(SUPPLY_CONTRACT)).usage).toEqual({ promptTokens: null, completionTokens: null });
  });

  it.each([
    ['a category outside the enum', { ...validAnswer(), category: 'weather' }, /category/],
    ['a missing field', { ...validAnswer(), summary: undefined }, /summary/],
    ['a headline over 100 characters', { ...validAnswer(), headline: '가'.repeat(101) }, /headline/],
  ])('fails on %s as a bad answer', async (_name, answer, field) => {
    server.answerWith({ status: 200, body: completion(JSON.stringify(answer)) });
    const error = await failureOf(analyzer.analyze(SUPPLY_CONTRACT));
    expect(error.failure).toBe('bad-answer');
    expect(error.message).toMatch(/^the model answered outside the schema: /);
    expect(error.message).toMatch(field);
  });

  it.each([
    ['text that is not JSON', completion('죄송하지만 분석할 수 없습니다'), /not JSON/],
    ['a refusal', completion(null, { refusal: '이 요청은 도울 수 없습니다' }), /refused/],
    ['an empty answer', completion(''), /empty answer/],
    ['an answer cut at the token limit', completion('{"schema_version":1,"headl', { finish_reason: 'length' }), /token limit/],
  ])('fails on %s as a bad answer', async (_name, body, message) => {
    server.answerWith({ status: 200, body });
    const error = await failureOf(analyzer.analyze(SUPPLY_CONTRACT));
    expect(error.failure).toBe('bad-answer');
    expect(error.message).toMatch(message);
  });

  it.each([
    [429, 'outage'],
    [500, 'outage'],
    [503, 'outage'],
    [400, 'configuration'],
    [401, 'configuration'],
    [403, 'configuration'],
    [404, 'configuration'],
  ])('maps HTTP %i to a failure of kind %s, without retrying inside the SDK', async (status, failure) => {
    server.answerWith({ status, body: { error: { message: `status ${status}`, type: 'test', code: null } } });
    const error = await failureOf(analyzer.analyze(SUPPLY_CONTRACT));
    expect(error.failure).toBe(failure);
    expect(error.message).toContain(`HTTP ${status}`);
    expect(server.requests).toHaveLength(1);
  });

  it('carries the wait a rate limit asks for: retry-after-ms first, else Retry-After, else none', async () => {
    const limited = (headers?: Record<string, string>) => ({ status: 429, body: { error: { message: 'slow down' } }, headers });
    server.answerWith(limited({ 'retry-after-ms': '1500', 'retry-after': '2' }));
    expect(await failureOf(analyzer.analyze(SUPPLY_CONTRACT))).toMatchObject({ failure: 'outage', retryAfterMs: 1500 });
    server.answerWith(limited({ 'retry-after': '20' }));
    expect(await failureOf(analyzer.analyze(SUPPLY_CONTRACT))).toMatchObject({ failure: 'outage', retryAfterMs: 20_000 });
    server.answerWith(limited());
    const bare = await failureOf(analyzer.analyze(SUPPLY_CONTRACT));
    expect(bare.failure).toBe('outage');
    expect(bare.retryAfterMs).toBeUndefined();
    // Each was one call: the SDK's own retries, which would honour the header themselves, stay off.
    expect(server.requests).toHaveLength(3);
  });

  it('names the cause of a refused key and of an unknown model', async () => {
    server.answerWith({ status: 401, body: { error: { message: 'Incorrect API key provided' } } });
    expect((await failureOf(analyzer.analyze(SUPPLY_CONTRACT))).message).toMatch(/check the API key/);
    server.answerWith({ status: 404, body: { error: { message: 'The model `gpt-9` does not exist' } } });
    expect((await failureOf(analyzer.analyze(SUPPLY_CONTRACT))).message).toMatch(/check the model name/);
  });

  it('gives up on a server that does not answer in time, as an outage', async () => {
    server.answerWith('hang');
    const quick = new OpenAiAnalyzer({ baseUrl: `${server.url}/v1`, apiKey: 'k', model: 'm' }, { timeoutMs: 200 });
    const error = await failureOf(quick.analyze(SUPPLY_CONTRACT));
    expect(error.failure).toBe('outage');
    expect(error.message).toMatch(/did not answer within 0.2 s/);
  });

  it('fails as an outage when nothing listens at the base URL', async () => {
    const closed = await startModelServerDouble();
    await closed.close();
    const unreachable = new OpenAiAnalyzer({ baseUrl: `${closed.url}/v1`, model: 'm' }, { timeoutMs: 1_000 });
    const error = await failureOf(unreachable.analyze(SUPPLY_CONTRACT));
    expect(error.failure).toBe('outage');
    expect(error.message).toMatch(/could not reach/);
  });

  it('tells its listener how each call went: answered (even outside the schema), or failed transiently or not', async () => {
    const calls: string[] = [];
    const counted = new OpenAiAnalyzer(
      { baseUrl: `${server.url}/v1`, apiKey: 'k', model: 'm' },
      { timeoutMs: 1_000, onCall: (endpoint, result) => calls.push(`${endpoint} ${result}`) },
    );
    server.answerWith({ status: 200, body: completion(JSON.stringify(validAnswer())) });
    await counted.analyze(SUPPLY_CONTRACT);
    server.answerWith({ status: 200, body: completion('not json') });
    await failureOf(counted.analyze(SUPPLY_CONTRACT));
    server.answerWith({ status: 503, body: { error: { message: 'busy' } } });
    await failureOf(counted.analyze(SUPPLY_CONTRACT));
    server.answerWith({ status: 401, body: { error: { message: 'bad key' } } });
    await failureOf(counted.analyze(SUPPLY_CONTRACT));
    expect(calls).toEqual(['chat.completions ok', 'chat.completions ok', 'chat.completions transient', 'chat.completions permanent']);
  });

  it('sends a placeholder key when none is configured (local servers ignore it)', async () => {
    server.answerWith({ status: 200, body: completion(JSON.stringify(validAnswer())) });
    const keyless = new OpenAiAnalyzer({ baseUrl: `${server.url}/v1`, model: 'llama3.1' });
    await keyless.analyze(SUPPLY_CONTRACT);
    expect(server.requests[0].headers.authorization).toBe('Bearer not-configured');
  });
});
