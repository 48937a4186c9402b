import { AppError } from '../common/errors/app-error';
import { parseSsvQuery, rawQueryOf } from './ssv-callback';

const SIGNATURE = 'MEUCIQCLJS_s4ia_sN06HqzeW7Wc3nhZi4RlW3qV1oO-WpkFAAIgBh4t8tUHVrGyC4SoU2sJKwblu2Gr8O9pdpfD-9q_C8s';
const SIGNED =
  'ad_network=5450213213286189855&ad_unit=1234567890&custom_data=hello%20world&reward_amount=1&reward_item=Reward&timestamp=1507770365237823&transaction_id=18fa792de1bca816048293fc71035638&user_id=42';

function codeOf(rawQuery: string): string {
  try {
    parseSsvQuery(rawQuery);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).code;
  }
  throw new Error('parseSsvQuery did not throw');
}

describe('parseSsvQuery', () => {
  it('signs exactly the raw bytes before &signature= and reads key_id after the signature', () => {
    const callback = parseSsvQuery(`${SIGNED}&signature=${SIGNATURE}&key_id=3335741209`);
    expect(callback.signedMessage).toBe(SIGNED);
    expect(callback.keyId).toBe('3335741209');
    expect(callback.signature).toEqual(Buffer.from(SIGNATURE, 'base64url'));
    expect(callback.params).toEqual({
      adNetwork: '5450213213286189855',
      adUnit: '1234567890',
      customData: 'hello world',
      rewardAmount: '1',
      rewardItem: 'Reward',
      timestamp: '1507770365237823',
      transactionId: '18fa792de1bca816048293fc71035638',
      userId: '42',
    });
  });

  it('accepts key_id inside the signed part too', () => {
    const callback = parseSsvQuery(`key_id=77&${SIGNED}&signature=${SIGNATURE}`);
    expect(callback.keyId).toBe('77');
    expect(callback.signedMessage).toBe(`key_id=77&${SIGNED}`);
  });

  it('leaves fields the ad network did not send undefined', () => {
    const callback = parseSsvQuery(`user_id=7&signature=${SIGNATURE}&key_id=1`);
    expect(callback.params).toEqual({ userId: '7' });
  });

  it.each([
    ['no signature at all', `${SIGNED}&key_id=1`],
    ['an empty query', ''],
    ['the signature first, so nothing is signed', `signature=${SIGNATURE}&${SIGNED}&key_id=1`],
    ['an empty signature', `${SIGNED}&signature=&key_id=1`],
    ['a signature with characters outside URL-safe base64', `${SIGNED}&signature=abc$def*ghijklmnopqrstuv&key_id=1`],
    ['two signatures', `${SIGNED}&signature=${SIGNATURE}&signature=${SIGNATURE}&key_id=1`],
    ['no key_id', `${SIGNED}&signature=${SIGNATURE}`],
    ['a key_id that is not a number', `${SIGNED}&signature=${SIGNATURE}&key_id=abc`],
    ['key_id both signed and after the signature', `key_id=1&${SIGNED}&signature=${SIGNATURE}&key_id=2`],
  ])('refuses %s as AD_SIGNATURE_INVALID', (_case, rawQuery) => {
    expect(codeOf(rawQuery)).toBe('AD_SIGNATURE_INVALID');
  });

  it('refuses unsigned parameters appended after the signature', () => {
    expect(codeOf(`${SIGNED}&signature=${SIGNATURE}&key_id=1&user_id=99`)).toBe('AD_CALLBACK_INVALID');
  });

  it('refuses a signed parameter that appears twice', () => {
    expect(codeOf(`${SIGNED}&user_id=43&signature=${SIGNATURE}&key_id=1`)).toBe('AD_CALLBACK_INVALID');
  });
});

describe('rawQueryOf', () => {
  it('is everything after the first ?, untouched', () => {
    expect(rawQueryOf('/api/v1/adnet/ssv?a=1%20b&c=d?e')).toBe('a=1%20b&c=d?e');
  });

  it('is empty without a query', () => {
    expect(rawQueryOf('/api/v1/adnet/ssv')).toBe('');
  });
});
