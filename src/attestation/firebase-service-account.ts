import { readFileSync } from 'node:fs';

/** The fields of a Firebase service-account key that the Admin SDK needs. */
export interface FirebaseServiceAccount {
  project_id: string;
  client_email: string;
  private_key: string;
}

const VARIABLE = 'FIREBASE_SERVICE_ACCOUNT';

/**
 * Reads FIREBASE_SERVICE_ACCOUNT: the service-account JSON itself (a value that
 * starts with `{`) or the path of a file holding it. Throws a message naming the
 * variable and what is wrong, never the key material.
 */
export function readFirebaseServiceAccount(value: string): FirebaseServiceAccount {
  const trimmed = value.trim();
  let text: string;
  if (trimmed.startsWith('{')) {
    text = trimmed;
  } else {
    try {
      text = readFileSync(trimmed, 'utf8');
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new Error(`${VARIABLE} must be a service-account JSON or the path of one (cannot read "${trimmed}": ${reason})`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${VARIABLE} must be a service-account JSON or the path of one (the content is not valid JSON)`);
  }
  const account = parsed as Partial<Record<keyof FirebaseServiceAccount, unknown>> | null;
  const missing = (['project_id', 'client_email', 'private_key'] as const).filter(
    (field) => typeof account?.[field] !== 'string' || account[field] === '',
  );
  if (missing.length > 0) {
    throw new Error(`${VARIABLE} must be a service-account JSON (missing ${missing.join(', ')})`);
  }
  return account as FirebaseServiceAccount;
}
