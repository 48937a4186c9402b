import { type EnvReader, splitList } from '../config/env-reader';

/** The rewarded-ad network's server-side verification callback. */
export interface AdMobConfig {
  /** Where the ECDSA verifier keys are published (`{ keys: [{ keyId, pem, base64 }] }`). */
  verifierKeysUrl: string;
  /** Ad units whose rewards are granted; undefined: any ad unit. */
  adUnitIds?: string[];
}

export function adsConfig(read: EnvReader): AdMobConfig {
  return {
    verifierKeysUrl: read.url('ADMOB_VERIFIER_KEYS_URL', 'https://www.gstatic.com/admob/reward/verifier-keys.json'),
    adUnitIds: parseAdUnitIds(read, read.optionalString('ADMOB_AD_UNIT_IDS')),
  };
}

/**
 * A comma list of ad unit ids, either the numeric id the callback carries
 * (`5224354917`) or the full id the apps use (`ca-app-pub-3940256099942544/5224354917`).
 */
function parseAdUnitIds(read: EnvReader, value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const ids = splitList(value);
  const bad = ids.filter((id) => !/^(ca-app-pub-\d+\/)?\d{1,30}$/.test(id));
  for (const id of bad) {
    read.fail('ADMOB_AD_UNIT_IDS', 'a comma-separated list of ad unit ids such as ca-app-pub-123/456 or 456', id);
  }
  return ids.length > 0 ? ids : undefined;
}
