import { preparedStatement, preparedStatementName } from './prepared-statements';

describe('preparedStatement', () => {
  it('registers a text under its name and hands the text back', () => {
    const text = 'SELECT 1 AS registry_spec_one';
    expect(preparedStatement('registry_spec_one', text)).toBe(text);
    expect(preparedStatementName(text)).toBe('registry_spec_one');
  });

  it('leaves every other text unnamed', () => {
    expect(preparedStatementName('SELECT 1 AS registry_spec_unregistered')).toBeUndefined();
  });

  it('accepts the same registration twice (a module evaluated again)', () => {
    const text = 'SELECT 2 AS registry_spec_two';
    preparedStatement('registry_spec_two', text);
    expect(preparedStatement('registry_spec_two', text)).toBe(text);
    expect(preparedStatementName(text)).toBe('registry_spec_two');
  });

  it('refuses a name given to two texts, and a text given two names', () => {
    preparedStatement('registry_spec_three', 'SELECT 3 AS registry_spec_three');
    expect(() => preparedStatement('registry_spec_three', 'SELECT 3 AS something_else')).toThrow(/already registered with another text/);
    expect(() => preparedStatement('registry_spec_three_again', 'SELECT 3 AS registry_spec_three')).toThrow(
      /already registered as registry_spec_three/,
    );
    expect(preparedStatementName('SELECT 3 AS something_else')).toBeUndefined();
    expect(preparedStatementName('SELECT 3 AS registry_spec_three')).toBe('registry_spec_three');
  });
});
