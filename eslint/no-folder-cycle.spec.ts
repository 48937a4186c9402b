import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type ESLint, Linter } from 'eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';
import local from './no-folder-cycle';

/** Writes `files` (path under the folder → text) into a new temporary folder. */
function project(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folder-cycle-'));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

/** Lints every file of `dir` with `rules` (ESLint's Linter, as `eslint` runs it), answering each message as `file:line rule: message`. */
function lint(dir: string, rules: Linter.RulesRecord): string[] {
  const linter = new Linter({ configType: 'flat', cwd: dir });
  const config: Linter.Config[] = [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser },
      plugins: { local, 'import-x': importX as unknown as ESLint.Plugin },
      settings: { 'import-x/extensions': ['.ts'], 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts'] })] },
      rules,
    },
  ];
  const files = (fs.readdirSync(dir, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts')).sort();
  return files.flatMap((file) =>
    linter
      .verify(fs.readFileSync(path.join(dir, file), 'utf8'), config, { filename: path.join(dir, file) })
      .map((m) => `${file}:${m.line} ${m.ruleId}: ${m.message}`),
  );
}

const FOLDER_CYCLE = { 'local/no-folder-cycle': ['error', { root: 'src' }] } satisfies Linter.RulesRecord;

describe('local/no-folder-cycle', () => {
  const dirs: string[] = [];
  const make = (files: Record<string, string>) => {
    const dir = project(files);
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** disclosures → push → disclosures between folders, though no file imports itself back; one way is a type-only import. */
  const cyclic = {
    'src/disclosures/ingest.ts': "import { addToOutbox } from '../push/outbox';\nexport const ingest = () => addToOutbox();\n",
    'src/disclosures/events.ts': 'export interface FilingCreated { rceptNo: string }\n',
    'src/push/outbox.ts': 'export const addToOutbox = () => undefined;\n',
    'src/push/dispatcher.ts':
      "import type { FilingCreated } from '../disclosures/events';\nexport const dispatch = (event: FilingCreated) => event.rceptNo;\n",
  };

  it('fails on a cycle between folders, naming it in each file that closes it, type-only imports included', () => {
    expect(lint(make(cyclic), FOLDER_CYCLE)).toEqual([
      "src/disclosures/ingest.ts:1 local/no-folder-cycle: disclosures imports push, which imports disclosures back: disclosures → push → disclosures (push/dispatcher.ts imports '../disclosures/events'). Lower folders must not reach up (docs/development.md, 'Code layout').",
      "src/push/dispatcher.ts:1 local/no-folder-cycle: push imports disclosures, which imports push back: push → disclosures → push (disclosures/ingest.ts imports '../push/outbox'). Lower folders must not reach up (docs/development.md, 'Code layout').",
    ]);
  });

  it('which import-x/no-cycle does not see: it follows files, and no file imports itself back', () => {
    expect(lint(make(cyclic), { 'import-x/no-cycle': 'error' })).toEqual([]);
    // What it does see: a file that imports itself back.
    const fileCycle = make({
      'src/push/outbox.ts': "import { ingest } from '../disclosures/ingest';\nexport const addToOutbox = () => ingest;\n",
      'src/disclosures/ingest.ts': "import { addToOutbox } from '../push/outbox';\nexport const ingest = () => addToOutbox();\n",
    });
    expect(lint(fileCycle, { 'import-x/no-cycle': 'error' })).toEqual([
      'src/disclosures/ingest.ts:1 import-x/no-cycle: Dependency cycle detected',
      'src/push/outbox.ts:1 import-x/no-cycle: Dependency cycle detected',
    ]);
  });

  it('passes a graph whose folders import one way only', () => {
    const dir = make({
      'src/main.ts': "import { dispatch } from './push/dispatcher';\nexport const run = () => dispatch();\n",
      'src/push/dispatcher.ts': "import { ingest } from '../disclosures/ingest';\nexport const dispatch = () => ingest();\n",
      'src/disclosures/ingest.ts': "import type { Clock } from '../common/clock';\nexport const ingest = (clock?: Clock) => clock;\n",
      'src/common/clock.ts': 'export interface Clock { now(): Date }\n',
    });
    expect(lint(dir, FOLDER_CYCLE)).toEqual([]);
  });

  it('counts the files at the top of the root as one folder, which no folder may import', () => {
    const dir = make({
      'src/main.ts': "import { boot } from './common/boot';\nexport const settings = { port: 3000 };\nboot();\n",
      'src/common/boot.ts': "export const boot = async () => (await import('../main')).settings;\n",
    });
    expect(lint(dir, FOLDER_CYCLE)).toEqual([
      "src/common/boot.ts:1 local/no-folder-cycle: common imports (top level), which imports common back: common → (top level) → common (main.ts imports './common/boot'). Lower folders must not reach up (docs/development.md, 'Code layout').",
      "src/main.ts:1 local/no-folder-cycle: (top level) imports common, which imports (top level) back: (top level) → common → (top level) (common/boot.ts imports '../main'). Lower folders must not reach up (docs/development.md, 'Code layout').",
    ]);
  });
});
