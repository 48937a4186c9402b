import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import type { AuthConfig } from './auth.config';
import { InjectConfig } from '../config/config.module';
import type { IdentityProvider } from '../users/user-identity.entity';
import { UsersRepository } from '../users/users.repository';
import { AccessTokenUserInfoVerifier } from './identity-providers/access-token-userinfo.verifier';
import { OidcIdTokenVerifier } from './identity-providers/oidc-id-token.verifier';
import { ServiceTokenService } from './service-token.service';

export type OidcProvider = Extract<IdentityProvider, 'idp2' | 'idp3'>;

/** Exchanges identity-provider tokens for the service's own JWT. */
@Injectable()
export class AuthService {
  private readonly idp1: AccessTokenUserInfoVerifier;
  private readonly oidc: Record<OidcProvider, OidcIdTokenVerifier>;

  constructor(
    @InjectConfig() config: AuthConfig,
    clock: Clock,
    private readonly users: UsersRepository,
    private readonly tokens: ServiceTokenService,
  ) {
    this.idp1 = new AccessTokenUserInfoVerifier(config.idp1.userinfoUrl);
    const now = () => clock.now();
    this.oidc = {
      idp2: new OidcIdTokenVerifier('idp2', config.idp2, now),
      idp3: new OidcIdTokenVerifier('idp3', config.idp3, now),
    };
  }

  async signInWithAccessToken(accessToken: string): Promise<string> {
    const subject = await this.idp1.subjectOf(accessToken);
    return this.issueFor('idp1', subject);
  }

  async signInWithIdToken(provider: OidcProvider, idToken: string): Promise<string> {
    const subject = await this.oidc[provider].subjectOf(idToken);
    return this.issueFor(provider, subject);
  }

  private async issueFor(provider: IdentityProvider, subject: string): Promise<string> {
    const { userId } = await this.users.findOrCreateByIdentity(provider, subject);
    return this.tokens.issue(userId);
  }
}
