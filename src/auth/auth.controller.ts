import { Body, Controller, Delete, Get, Headers, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { ApiHeader, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AppError } from '../common/errors/app-error';
import { UsersRepository } from '../users/users.repository';
import { AuthService } from './auth.service';
import { Authenticated, CurrentUser } from './authenticated.decorator';
import { AccessTokenSignInRequest, IdTokenSignInRequest, MeResponse, SignInResponse } from './dto/sign-in.dto';
import type { AuthenticatedUser } from './jwt.strategy';
import { ApiErrors } from '../common/http/api-errors';

/** What the OpenID sign-ins answer besides the token. */
const ID_TOKEN_SIGN_IN_ERRORS = {
  VALIDATION_FAILED: '`id_token` missing or not a string',
  IDENTITY_REJECTED: 'the identity token is invalid, expired, or for another audience',
  PROVIDER_NOT_CONFIGURED: "the provider's audience is not configured",
  PROVIDER_UNAVAILABLE: "the provider's signing keys could not be fetched (unreachable, slower than 5 s, or not a key set)",
} as const;

@ApiTags('auth')
@Controller('api/v1/auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly users: UsersRepository,
  ) {}

  @Post('idp1/token')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Sign in with an access token of the first identity provider' })
  @ApiOkResponse({ type: SignInResponse })
  @ApiErrors({
    VALIDATION_FAILED: '`access_token` missing or not a string',
    IDENTITY_REJECTED: 'the provider rejected the token (a 4xx other than 429), or it has characters RFC 6750 does not allow',
    IDENTITY_UNAVAILABLE: 'the provider failed (5xx), throttled us (429), was unreachable or slower than 5 s, or named no usable id',
  })
  async signInIdp1(@Body() body: AccessTokenSignInRequest): Promise<SignInResponse> {
    return { token: await this.auth.signInWithAccessToken(body.access_token) };
  }

  @Post('idp2/token')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Sign in with an OpenID Connect identity token of the second provider' })
  @ApiOkResponse({ type: SignInResponse })
  @ApiErrors(ID_TOKEN_SIGN_IN_ERRORS)
  async signInIdp2(@Body() body: IdTokenSignInRequest): Promise<SignInResponse> {
    return { token: await this.auth.signInWithIdToken('idp2', body.id_token) };
  }

  @Post('idp3/token')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Sign in with an OpenID Connect identity token of the third provider' })
  @ApiOkResponse({ type: SignInResponse })
  @ApiErrors(ID_TOKEN_SIGN_IN_ERRORS)
  async signInIdp3(@Body() body: IdTokenSignInRequest): Promise<SignInResponse> {
    return { token: await this.auth.signInWithIdToken('idp3', body.id_token) };
  }

  @Get('me')
  @Authenticated()
  @ApiOperation({ summary: 'The signed-in user' })
  @ApiOkResponse({ type: MeResponse })
  me(@CurrentUser() user: AuthenticatedUser): MeResponse {
    return { user_id: user.userId };
  }

  @Delete('withdraw')
  @Authenticated()
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Delete the account and all of its data' })
  @ApiHeader({ name: 'X-Confirm-Withdraw', required: true, description: 'Must be `yes`' })
  @ApiNoContentResponse({ description: 'The account and its data are deleted' })
  @ApiErrors({ WITHDRAW_NOT_CONFIRMED: '`X-Confirm-Withdraw: yes` missing' })
  async withdraw(@CurrentUser() user: AuthenticatedUser, @Headers('x-confirm-withdraw') confirmation: string | undefined): Promise<void> {
    if (confirmation?.trim().toLowerCase() !== 'yes') {
      throw new AppError('WITHDRAW_NOT_CONFIRMED', 'Send the header X-Confirm-Withdraw: yes to delete the account');
    }
    await this.users.delete(user.userId);
  }
}
