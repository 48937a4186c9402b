/**
 * Statements that every connection of the pool parses once, under a name, and then
 * only binds and executes (PostgreSQL's extended protocol; pg's named queries).
 *
 * The public reads run a handful of fixed texts thousands of times a second. Sent
 * unnamed, each execution pays PostgreSQL's parse, analysis and planning again, and
 * planning a feed statement took longer than executing it (docs/benchmarks-history.md,
 * "Prepared statements"). Prepared, PostgreSQL parses once per connection and, for a
 * statement whose generic plan costs no more than its custom ones (a filing or a company
 * by key, a company's feed), stops planning too; for the others (a LIMIT or a date range
 * decides the plan) it keeps planning per execution, as before, and only the parse is
 * saved (docs/benchmarks.md, "Query plans": its plan column says which).
 *
 * Only texts registered here are prepared, and they are registered once, at module
 * scope, from constants: a connection keeps each prepared statement until it closes,
 * so a text built from input would grow every connection without bound.
 * `PostgresClient` looks each statement up here by its text.
 */
const namesByText = new Map<string, string>();
const textsByName = new Map<string, string>();

/** Registers `text` to be prepared as `name` on every connection, and returns the text to send. */
export function preparedStatement(name: string, text: string): string {
  const earlierText = textsByName.get(name);
  if (earlierText !== undefined && earlierText !== text) {
    throw new Error(`Prepared statement ${name} is already registered with another text`);
  }
  const earlierName = namesByText.get(text);
  if (earlierName !== undefined && earlierName !== name) {
    throw new Error(`The text of prepared statement ${name} is already registered as ${earlierName}`);
  }
  textsByName.set(name, text);
  namesByText.set(text, name);
  return text;
}

/** The name `text` is prepared under, or undefined for a statement sent unnamed. */
export function preparedStatementName(text: string): string | undefined {
  return namesByText.get(text);
}
