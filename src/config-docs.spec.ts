import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { readConfig } from './app-config';
import { EnvReader } from './config/env-reader';

const CONFIGURATION_DOC = path.join(__dirname, '..', 'docs', 'configuration.md');
/** What docker compose passes to the service (env_file): every variable, most commented out. */
const ENV_EXAMPLE = path.join(__dirname, '..', '.env.example');

/** Every variable the configuration asks for, in the environments that change what it reads. */
function variablesRead(): string[] {
  const names = new Set<string>();
  for (const env of [{}, { APP_ENV: 'production' }, { APP_ENV: 'dev', DART_API_KEY: 'key' }]) {
    const read = new EnvReader(env);
    readConfig(read);
    for (const name of read.variablesRead) names.add(name);
  }
  return [...names].sort();
}

describe('configuration documentation', () => {
  it('names every variable the configuration reads in docs/configuration.md', () => {
    const doc = readFileSync(CONFIGURATION_DOC, 'utf8');
    const names = variablesRead();
    expect(names.length).toBeGreaterThan(60);
    expect(names.filter((name) => !doc.includes(`\`${name}\``))).toEqual([]);
  });

  it('lists every variable in .env.example, set or commented out, and nothing else', () => {
    const listed = [...readFileSync(ENV_EXAMPLE, 'utf8').matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]);
    const names = variablesRead().filter((name) => name !== 'DATABASE_URL');
    expect([...new Set(listed)].sort()).toEqual(names);
  });
});
