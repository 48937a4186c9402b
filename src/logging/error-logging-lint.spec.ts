import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const MESSAGE = "log the error as { err } so its stack is kept: logger.warn({ err: error }, 'what failed')";

/**
 * Lints each sample with the project's eslint.config.mjs through ESLint's Node API, in a
 * child process (the config is an ES module, which Jest's CommonJS runtime cannot import).
 * The samples are not files of the TypeScript project, so the type-aware rules are off for
 * them; the rule under test needs no types. Answers what the rule said about each sample.
 */
const SCRIPT = `
import { readFileSync } from 'node:fs';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
const samples = JSON.parse(readFileSync(0, 'utf8'));
const eslint = new ESLint({
  overrideConfigFile: 'eslint.config.mjs',
  overrideConfig: [{ files: ['**/*.ts'], ...tseslint.configs.disableTypeChecked, languageOptions: { parserOptions: { projectService: false, project: false } } }],
});
const answers = [];
for (const { code, filePath } of samples) {
  const [result] = await eslint.lintText(code, { filePath });
  answers.push(result.messages.map(({ ruleId, message, fatal }) => ({ ruleId, message, fatal: fatal === true })));
}
process.stdout.write(JSON.stringify(answers));
`;

interface Finding {
  ruleId: string | null;
  message: string;
  fatal: boolean;
}

function lint(samples: { code: string; filePath: string }[]): Finding[][] {
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', SCRIPT], {
    cwd: ROOT,
    input: JSON.stringify(samples),
    encoding: 'utf8',
  });
  return JSON.parse(output) as Finding[][];
}

/** A method body of a service with a Nest logger, and a function with a pino `log`. */
const inService = (statement: string) => `
import { Logger } from '@nestjs/common';
declare const log: { info(...args: unknown[]): void; warn(...args: unknown[]): void };
declare const access: { logger: Logger };
export class Sample {
  private readonly logger = new Logger(Sample.name);
  run(error: unknown, err: Error, e: Error, cause: Error, reason: unknown, count: number): void {
    ${statement}
  }
}
`;

const BAD = [
  'this.logger.warn(`company ${count}: fetch failed: ${String(error)}`);',
  'this.logger.error(`poll failed: ${error}`);',
  'this.logger.log(`retrying after ${e}`);',
  'this.logger.debug(`token refused (${err.message})`);',
  'this.logger.verbose((error as Error).message);',
  'this.logger.fatal(err.stack);',
  "Logger.error('sweep failed: ' + String(cause));",
  'log.warn(`shutting down: ${reason}`);',
  'log.info({ count }, `failed: ${err.message}`);',
  'access.logger.warn(`aborted: ${cause.message}`);',
  "this.logger.warn({ err: error }, 'failed: ' + String(error));",
];

const GOOD = [
  "this.logger.warn({ err: error }, 'rate-limit sweep failed');",
  'this.logger.error({ err: error }, `company ${count}: fetch failed`);',
  "log.warn({ err: reason, count }, 'unhandled promise rejection');",
  'this.logger.log(`fetched ${count} ad verifier key(s)`);',
  'throw new Error(`applying the migrations failed: ${String(error)}`, { cause: error });',
  'const text = `failed: ${err.message}`; void text;',
];

describe('the lint rule on errors logged as text (eslint.config.mjs)', () => {
  let bad: Finding[][];
  let good: Finding[][];
  let elsewhere: Finding[][];

  beforeAll(() => {
    const samples = [...BAD, ...GOOD].map((statement) => ({ code: inService(statement), filePath: 'src/logging/lint-sample.ts' }));
    const answers = lint([
      ...samples,
      { code: inService(BAD[0]), filePath: 'local/lint-sample.ts' },
      { code: inService(BAD[0]), filePath: 'bench/lint-sample.ts' },
      { code: inService(BAD[0]), filePath: 'test/e2e/lint-sample.e2e-spec.ts' },
    ]);
    for (const findings of answers) expect(findings.filter((finding) => finding.fatal)).toEqual([]);
    bad = answers.slice(0, BAD.length);
    good = answers.slice(BAD.length, BAD.length + GOOD.length);
    elsewhere = answers.slice(BAD.length + GOOD.length);
  }, 60_000);

  const flagged = (findings: Finding[]) => findings.filter((finding) => finding.ruleId === 'no-restricted-syntax');

  it.each(BAD.map((statement, i) => [statement, i]))('flags %s', (_statement, i) => {
    expect(flagged(bad[i]).length).toBeGreaterThan(0);
    expect(flagged(bad[i]).map((finding) => finding.message)).toEqual(flagged(bad[i]).map(() => MESSAGE));
  });

  it.each(GOOD.map((statement, i) => [statement, i]))('lets %s through', (_statement, i) => {
    expect(flagged(good[i])).toEqual([]);
  });

  it('holds in local/, bench/ and the tests too', () => {
    for (const findings of elsewhere) expect(flagged(findings).map((finding) => finding.message)).toEqual([MESSAGE]);
  });
});
