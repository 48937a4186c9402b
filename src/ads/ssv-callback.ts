import { AppError } from '../common/errors/app-error';

/**
 * One server-side verification callback of the ad network, split into what was
 * signed and what was not. The signed message is the raw query string up to, not
 * including, `&signature=`; only `signature` and `key_id` may follow it. Content
 * fields are read from the signed part alone, so nothing appended after the
 * signature can change what is granted.
 */
export interface SsvCallback {
  /** The exact bytes the ad network signed (the raw query prefix, never re-serialised). */
  signedMessage: string;
  /** The DER-encoded ECDSA signature. */
  signature: Buffer;
  keyId: string;
  /** The signed parameters, each present at most once. */
  params: SsvParams;
}

export interface SsvParams {
  adNetwork?: string;
  adUnit?: string;
  customData?: string;
  rewardAmount?: string;
  rewardItem?: string;
  timestamp?: string;
  transactionId?: string;
  userId?: string;
}

const SIGNATURE_MARKER = '&signature=';
const TRAILING_PARAMETERS = new Set(['signature', 'key_id']);
const SIGNED_FIELDS: Record<string, keyof SsvParams> = {
  ad_network: 'adNetwork',
  ad_unit: 'adUnit',
  custom_data: 'customData',
  reward_amount: 'rewardAmount',
  reward_item: 'rewardItem',
  timestamp: 'timestamp',
  transaction_id: 'transactionId',
  user_id: 'userId',
};
/** A DER ECDSA P-256 signature is at most 72 bytes: 96 base64 characters. */
const SIGNATURE_PATTERN = /^[A-Za-z0-9_-]{16,128}={0,2}$/;
const KEY_ID_PATTERN = /^\d{1,20}$/;

/** Splits a raw query string (without the `?`); throws AppError for anything malformed. */
export function parseSsvQuery(rawQuery: string): SsvCallback {
  const marker = rawQuery.indexOf(SIGNATURE_MARKER);
  if (marker <= 0) throw new AppError('AD_SIGNATURE_INVALID', 'The callback carries no signature');
  const signedMessage = rawQuery.slice(0, marker);
  const signed = new URLSearchParams(signedMessage);
  const trailing = new URLSearchParams(rawQuery.slice(marker + 1));

  for (const name of trailing.keys()) {
    if (!TRAILING_PARAMETERS.has(name)) {
      throw new AppError('AD_CALLBACK_INVALID', `Unsigned parameter after the signature: ${name.slice(0, 40)}`);
    }
  }
  const signatures = trailing.getAll('signature');
  if (signatures.length !== 1 || signed.has('signature') || !SIGNATURE_PATTERN.test(signatures[0])) {
    throw new AppError('AD_SIGNATURE_INVALID', 'The signature is missing or malformed');
  }
  const keyIds = [...signed.getAll('key_id'), ...trailing.getAll('key_id')];
  if (keyIds.length !== 1 || !KEY_ID_PATTERN.test(keyIds[0])) {
    throw new AppError('AD_SIGNATURE_INVALID', 'key_id is missing or malformed');
  }

  const params: SsvParams = {};
  for (const [name, field] of Object.entries(SIGNED_FIELDS)) {
    const values = signed.getAll(name);
    if (values.length > 1) throw new AppError('AD_CALLBACK_INVALID', `Parameter ${name} appears more than once`);
    if (values.length === 1) params[field] = values[0];
  }
  return { signedMessage, signature: Buffer.from(signatures[0], 'base64url'), keyId: keyIds[0], params };
}

/** The raw query string of a request URL such as `req.originalUrl` (empty without `?`). */
export function rawQueryOf(url: string): string {
  const start = url.indexOf('?');
  return start < 0 ? '' : url.slice(start + 1);
}
