import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { readFirebaseServiceAccount } from './firebase-service-account';

const ACCOUNT = {
  type: 'service_account',
  project_id: 'briefing-test',
  client_email: 'admin@briefing-test.iam.gserviceaccount.com',
  private_key: '-----BEGIN PRIVATE KEY-----\nSECRET-KEY-MATERIAL\n-----END PRIVATE KEY-----\n',
};

describe('readFirebaseServiceAccount', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'service-account-'));
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the JSON given as the value itself', () => {
    expect(readFirebaseServiceAccount(`  ${JSON.stringify(ACCOUNT)}\n`)).toMatchObject({
      project_id: 'briefing-test',
      client_email: ACCOUNT.client_email,
      private_key: ACCOUNT.private_key,
    });
  });

  it('reads the JSON from a file path', () => {
    const file = path.join(dir, 'account.json');
    writeFileSync(file, JSON.stringify(ACCOUNT));
    expect(readFirebaseServiceAccount(file).project_id).toBe('briefing-test');
  });

  it('names the variable when the path cannot be read', () => {
    expect(() => readFirebaseServiceAccount(path.join(dir, 'missing.json'))).toThrow(
      /^FIREBASE_SERVICE_ACCOUNT must be a service-account JSON or the path of one \(cannot read ".*missing\.json": ENOENT\)$/,
    );
  });

  it('names the variable when the content is not JSON', () => {
    expect(() => readFirebaseServiceAccount('{ not json')).toThrow(/^FIREBASE_SERVICE_ACCOUNT .*not valid JSON/);
  });

  it('lists the missing fields and never echoes the key material', () => {
    let message = '';
    try {
      readFirebaseServiceAccount(JSON.stringify({ ...ACCOUNT, project_id: '', client_email: undefined }));
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe('FIREBASE_SERVICE_ACCOUNT must be a service-account JSON (missing project_id, client_email)');
    expect(message).not.toContain('SECRET-KEY-MATERIAL');
  });
});
