import { AccessTokenUserInfoVerifier } from '../../src/auth/identity-providers/access-token-userinfo.verifier';
import { type LocalIdentityProvider, startLocalIdentityProvider } from './local-identity-provider';

describe('local identity provider', () => {
  let provider: LocalIdentityProvider;
  let verifier: AccessTokenUserInfoVerifier;

  beforeAll(async () => {
    provider = await startLocalIdentityProvider();
    verifier = new AccessTokenUserInfoVerifier(provider.userinfoUrl);
  });
  afterAll(() => provider.close());

  it('names one stable account per sandbox token', async () => {
    await expect(verifier.subjectOf('sandbox-alice')).resolves.toBe('sandbox-alice');
    await expect(verifier.subjectOf('sandbox-alice')).resolves.toBe('sandbox-alice');
    await expect(verifier.subjectOf('sandbox-bob-2')).resolves.toBe('sandbox-bob-2');
    await expect(verifier.subjectOf(`sandbox-${'a'.repeat(40)}`)).resolves.toBe(`sandbox-${'a'.repeat(40)}`);
  });

  it.each([
    ['no name', 'sandbox-'],
    ['a name of 41 characters', `sandbox-${'a'.repeat(41)}`],
    ['capitals', 'sandbox-Alice'],
    ['an underscore', 'sandbox-al_ice'],
    ['another prefix', 'user-alice'],
    ['a real-looking token', 'x4ZkP0cVfQ'],
  ])('refuses %s with 401', async (_, token) => {
    await expect(verifier.subjectOf(token)).rejects.toMatchObject({ code: 'IDENTITY_REJECTED' });
  });

  it('answers only the user-info path', async () => {
    const other = new URL('/oauth/token', provider.userinfoUrl);
    const response = await fetch(other, { headers: { Authorization: 'Bearer sandbox-alice' } });
    expect(response.status).toBe(404);
  });
});
