import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * A folder of its own for each test of the describe block that calls this (made before
 * each test, removed after it), and a writer of files in it that answers their paths.
 */
export function temporaryFiles(prefix: string): { dir(): string; file(name: string, content: string): string } {
  let dir = '';
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    dir: () => dir,
    file: (name, content) => {
      const at = path.join(dir, name);
      fs.writeFileSync(at, content);
      return at;
    },
  };
}
