import { analysisResultJsonSchema } from './analysis-result.schema';
import { AnalyzerError } from './analyzer';
import { AnthropicAnalyzer } from './anthropic.analyzer';
import { SYSTEM_PROMPT } from './prompts';
import { validAnswer } from '../../../local/doubles/analysis-answers';
import { RIGHTS_OFFERING } from '../../../local/doubles/filing-documents';
import { type ModelServerDouble, startModelServerDouble } from '../../../local/doubles/model-server-double';
import { rejectionOf } from '../../../local/doubles/rejection';

/** A Messages API answer whose content is the given blocks. */
function message(content: unknown[], stopReason = 'tool_use') {
  return {
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: 'claude-haiku-4-5-20251001',
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: 2100, output_tokens: 530, cache_creation_input_tokens: 0, cache_read_input_tokens: 400 },
  };
}

function toolCall(input: unknown) {
  return { type: 'tool_use', id: 'toolu_01', name: 'disclosure_analysis', input };
}

const failureOf = (promise: Promise<unknown>) => rejectionOf(promise, AnalyzerError);

describe('AnthropicAnalyzer against a Messages API server', () => {
  let server: ModelServerDouble;
  let analyzer: AnthropicAnalyzer;

  beforeAll(async () => {
    server = await startModelServerDouble();
    analyzer = new AnthropicAnalyzer({ baseUrl: server.url, apiKey: 'sk-ant-test', model: 'claude-haiku-4-5' }, { timeoutMs: 1_000 });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
  });

  it('forces one tool whose input schema is the result schema, with the Korean prompts, once', async () => {
    server.answerWith({ status: 200, body: message([toolCall(validAnswer())]) });
    await analyzer.analyze(RIGHTS_OFFERING);

    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/v1/messages');
    // The SDK sends the key as x-api-key or, in newer releases, as a bearer token.
    expect(request.headers['x-api-key'] ?? request.headers.authorization).toMatch(/^(Bearer )?sk-ant-test$/);
    expect(request.headers['anthropic-version']).toEqual(expect.any(String));
    const body = request.body as Record<string, unknown>;
    expect(body).toMatchObject({
      model: 'claude-haiku-4-5',
      max_tokens: 4096,
      system: SYSTEM_PROMPT,
      tools: [{ name: 'disclosure_analysis', input_schema: analysisResultJsonSchema }],
      tool_choice: { type: 'tool', name: 'disclosure_analysis' },
    });
    const messages = body.messages as { role: string; content: string }[];
    expect(messages).toHaveLength(1);
    expect(messages[0].role).toBe('user');
    expect(messages[0].content).toContain('회사: 가나다바이오');
    expect(messages[0].content).toContain('공시: 주요사항보고서(유상증자결정)');
    expect(messages[0].content).toContain(RIGHTS_OFFERING.text);
  });

  it('returns the tool input as the analysis, with the answering model and the usage (cached prompt tokens included)', async () => {
    server.answerWith({ status: 200, body: message([{ type: 'text', text: '분석을 기록합니다.' }, toolCall(validAnswer())]) });
    const output = await analyzer.analyze(RIGHTS_OFFERING);
    expect(output).toEqual({
      oneLiner: validAnswer().headline,
      result: validAnswer(),
      provider: 'anthropic',
      model: 'claude-haiku-4-5-20251001',
      usage: { promptTokens: 2500, completionTokens: 530 },
    });
  });

  it.each([
    ['a sentiment outside the enum', toolCall({ ...validAnswer(), sentiment: 'bullish' }), /sentiment/],
    ['a missing field', toolCall({ ...validAnswer(), impact: undefined }), /impact/],
    ['a headline over 100 characters', toolCall({ ...validAnswer(), headline: '나'.repeat(120) }), /headline/],
  ])('fails on %s as a bad answer', async (_name, block, field) => {
    server.answerWith({ status: 200, body: message([block]) });
    const error = await failureOf(analyzer.analyze(RIGHTS_OFFERING));
    expect(error.failure).toBe('bad-answer');
    expect(error.message).toMatch(/^the model answered outside the schema: /);
    expect(error.message).toMatch(field);
  });

  it.each([
    ['no tool call', message([{ type: 'text', text: '분석할 수 없습니다.' }], 'end_turn'), /no call of the answer tool/],
    ['a refusal', message([], 'refusal'), /refused/],
    ['an answer cut at max_tokens', message([toolCall({ headline: '가나' })], 'max_tokens'), /token limit/],
  ])('fails on %s as a bad answer', async (_name, body, reason) => {
    server.answerWith({ status: 200, body });
    const error = await failureOf(analyzer.analyze(RIGHTS_OFFERING));
    expect(error.failure).toBe('bad-answer');
    expect(error.message).toMatch(reason);
  });

  it.each([
    [429, 'outage'],
    [500, 'outage'],
    [529, 'outage'],
    [400, 'configuration'],
    [401, 'configuration'],
    [403, 'configuration'],
    [404, 'configuration'],
  ])('maps HTTP %i to a failure of kind %s, without retrying inside the SDK', async (status, failure) => {
    server.answerWith({ status, body: { type: 'error', error: { type: 'test_error', message: `status ${status}` } } });
    const error = await failureOf(analyzer.analyze(RIGHTS_OFFERING));
    expect(error.failure).toBe(failure);
    expect(error.message).toContain(`HTTP ${status}`);
    expect(server.requests).toHaveLength(1);
  });

  it('carries the Retry-After of an overloaded API', async () => {
    server.answerWith({
      status: 529,
      body: { type: 'error', error: { type: 'overloaded_error', message: 'overloaded' } },
      headers: { 'retry-after': '30' },
    });
    expect(await failureOf(analyzer.analyze(RIGHTS_OFFERING))).toMatchObject({ failure: 'outage', retryAfterMs: 30_000 });
    expect(server.requests).toHaveLength(1);
  });

  it('tells its listener how each call went: answered, or failed transiently or not', async () => {
    const calls: string[] = [];
    const counted = new AnthropicAnalyzer(
      { baseUrl: server.url, apiKey: 'k', model: 'm' },
      { timeoutMs: 1_000, onCall: (endpoint, result) => calls.push(`${endpoint} ${result}`) },
    );
    server.answerWith({ status: 200, body: message([toolCall(validAnswer())]) });
    await counted.analyze(RIGHTS_OFFERING);
    server.answerWith({ status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'overloaded' } } });
    await failureOf(counted.analyze(RIGHTS_OFFERING));
    server.answerWith({ status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'no' } } });
    await failureOf(counted.analyze(RIGHTS_OFFERING));
    expect(calls).toEqual(['messages ok', 'messages transient', 'messages permanent']);
  });

  it('gives up on a server that does not answer in time, as an outage', async () => {
    server.answerWith('hang');
    const quick = new AnthropicAnalyzer({ baseUrl: server.url, apiKey: 'k', model: 'm' }, { timeoutMs: 200 });
    const error = await failureOf(quick.analyze(RIGHTS_OFFERING));
    expect(error.failure).toBe('outage');
    expect(error.message).toMatch(/did not answer within 0.2 s/);
  });

  it('fails as an outage when nothing listens at the base URL', async () => {
    const closed = await startModelServerDouble();
    await closed.close();
    const unreachable = new AnthropicAnalyzer({ baseUrl: closed.url, apiKey: 'k', model: 'm' }, { timeoutMs: 1_000 });
    const error = await failureOf(unreachable.analyze(RIGHTS_OFFERING));
    expect(error.failure).toBe('outage');
    expect(error.message).toMatch(/could not reach/);
  });
});
