import { OAuth2Client } from 'google-auth-library';
import { bearerTokenOf } from '../../auth/bearer-token';
import { secretsEqual } from '../../common/secrets-equal';
import type { SubscriptionsConfig } from '../subscriptions.config';

/** Why a push was refused: no way to authenticate configured, bad credentials, or Google's keys unreachable. */
export type PushAuthFailure = 'not-configured' | 'rejected' | 'unavailable';

/** A bound on the fetch of Google's signing certificates. */
const CERTS_TIMEOUT_MS = 10_000;

/**
 * Authenticates a Pub/Sub push: the OIDC token Pub/Sub puts in `Authorization` (checked
 * for the configured audience and signed for the configured service account), or the
 * shared secret of the push endpoint URL (`?token=`), whichever is configured.
 */
export class PubSubPushAuth {
  private readonly oidc: OAuth2Client;

  constructor(private readonly settings: SubscriptionsConfig['pubsub']) {
    this.oidc = new OAuth2Client({
      endpoints: { oauth2FederatedSignonPemCertsUrl: settings.certsUrl },
      // Node's own fetch: gaxios would otherwise import() node-fetch (an ES module).
      transporterOptions: { fetchImplementation: fetch, timeout: CERTS_TIMEOUT_MS },
    });
  }

  /** Resolves null when the push is authentic, else why it is not. */
  async check(authorization: string | undefined, queryToken: string | undefined): Promise<PushAuthFailure | null> {
    const { audience, serviceAccountEmail, sharedSecret } = this.settings;
    if (!audience && !sharedSecret) return 'not-configured';
    if (sharedSecret && queryToken !== undefined && secretsEqual(queryToken, sharedSecret)) return null;
    const idToken = bearerTokenOf(authorization);
    if (!audience || idToken === null) return 'rejected';
    try {
      const ticket = await this.oidc.verifyIdToken({ idToken, audience });
      const payload = ticket.getPayload();
      return payload?.email === serviceAccountEmail && payload?.email_verified === true ? null : 'rejected';
    } catch (error) {
      // The certificate fetch failing is Google being unavailable, not a bad token.
      return isCertificateFetchFailure(error) ? 'unavailable' : 'rejected';
    }
  }
}

/**
 * A failed request for the certificates: gaxios's errors carry the request they failed
 * (`config`); a token that does not verify is a plain Error. (gaxios is the library's own
 * dependency, in a version of its own, so its class cannot be imported for `instanceof`.)
 */
function isCertificateFetchFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'config' in error;
}
