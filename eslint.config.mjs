// @ts-check
import eslint from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';
import local from './eslint/no-folder-cycle.js';

/**
 * An error logged as text loses its stack, its type and its cause: log it as `{ err }`, which
 * pino's error serializer writes whole (docs/operations.md). Refused in the arguments of a
 * logger call (a log-level method of something named log, logger or …Logger: `this.logger.warn`,
 * `log.error`, `Logger.log`, `access.logger.info`): `String(…)`, a template literal interpolating
 * err, error, e, cause or reason, and `.message` or `.stack` of one of those (`(error as Error).message`).
 */
const LOG_METHOD = '/^(log|info|warn|error|debug|verbose|trace|fatal)$/';
const LOGGER = '/^(log|logger|Logger|[A-Za-z]+Logger)$/';
const ERROR_NAME = '/^(err|error|e|cause|reason)$/';
const LOGGER_CALL =
  `CallExpression[callee.type='MemberExpression'][callee.property.name=${LOG_METHOD}]` +
  `:matches([callee.object.name=${LOGGER}], [callee.object.property.name=${LOGGER}])`;
const ERROR_AS_TEXT = "log the error as { err } so its stack is kept: logger.warn({ err: error }, 'what failed')";
const ERROR_LOGGING_RULE = [
  'error',
  { selector: `${LOGGER_CALL} CallExpression[callee.name='String']`, message: ERROR_AS_TEXT },
  { selector: `${LOGGER_CALL} TemplateLiteral > Identifier[name=${ERROR_NAME}]`, message: ERROR_AS_TEXT },
  {
    selector:
      `${LOGGER_CALL} MemberExpression[property.name=/^(message|stack)$/]` +
      `:matches([object.name=${ERROR_NAME}], [object.expression.name=${ERROR_NAME}], [object.property.name=${ERROR_NAME}])`,
    message: ERROR_AS_TEXT,
  },
];

export default tseslint.config(
  { ignores: ['dist/', 'dist-bench/', 'dist-local/', 'node_modules/', 'coverage/', '.data/', 'bench/job-libraries/'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
      'no-console': 'error',
      'no-restricted-syntax': ERROR_LOGGING_RULE,
    },
  },
  {
    // The dependency rule of src/ (docs/development.md, "Code layout"): no import cycle between
    // files, nor between folders, whose imports are read with `import type` and the rest alike.
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX, local },
    // Relative imports of .ts files resolve with import-x's own resolver (no eslint-import-resolver-typescript:
    // the project has no path aliases); without .ts among its extensions import-x would not follow them.
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json'] })],
    },
    rules: {
      'import-x/no-cycle': 'error',
      'local/no-folder-cycle': ['error', { root: 'src' }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/config/app-config'],
              importNames: ['AppConfig'],
              message:
                "Inject the slices the class reads (@InjectConfig() config: PushConfig, config: { dart: DartConfig }): the whole AppConfig hides which features' settings it depends on.",
            },
          ],
        },
      ],
    },
  },
  {
    // What may take the whole configuration: the application at the top (src/*.ts).
    files: ['src/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false, project: false },
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly', console: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off', 'no-console': 'off' },
  },
  {
    files: ['test/**/*.ts', '**/*.spec.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
