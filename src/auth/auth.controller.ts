import { Body, Controller, Delete, Get, Headers, HttpCode, HttpStatus, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { AppError } from '../common/errors/app-error';
import { ErrorBody } from '../common/errors/error-body';
import { UsersRepository } from '../users/users.repository';
import { AuthService } from './auth.service';
import { Authenticated, CurrentUser } from './authenticated.decorator';
import { AccessTokenSignInRequest, IdTokenSignInRequest, MeResponse, SignInResponse } from './dto/sign-in.dto';
import type { AuthenticatedUser } from './jwt.strategy';

@ApiTags('auth')
@ApiTooManyRequestsResponse({ type: ErrorBody, description: 'Rate limited; see Retry-After' })
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
  @ApiBadRequestResponse({ type: ErrorBody, description: '`access_token` missing' })
  @ApiUnauthorizedResponse({ type: ErrorBody, description: 'The provider rejected the token' })
  async signInIdp1(@Body() body: AccessTokenSignInRequest): Promise<SignInResponse> {
    return { token: await this.auth.signInWithAccessToken(body.access_token) };
  }

  @Post('idp2/token')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Sign in with an OpenID Connect identity token of the second provider' })
  @ApiOkResponse({ type: SignInResponse })
  @ApiBadRequestResponse({ type: ErrorBody, description: '`id_token` missing' })
  @ApiUnauthorizedResponse({ type: ErrorBody, description: 'Invalid or expired identity token' })
  @ApiServiceUnavailableResponse({ type: ErrorBody, description: 'Provider not configured or its keys unreachable' })
  async signInIdp2(@Body() body: IdTokenSignInRequest): Promise<SignInResponse> {
    return { token: await this.auth.signInWithIdToken('idp2', body.id_token) };
  }

  @Post('idp3/token')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Sign in with an OpenID Connect identity token of the third provider' })
  @ApiOkResponse({ type: SignInResponse })
  @ApiBadRequestResponse({ type: ErrorBody, description: '`id_token` missing' })
  @ApiUnauthorizedResponse({ type: ErrorBody, description: 'Invalid or expired identity token' })
  @ApiServiceUnavailableResponse({ type: ErrorBody, description: 'Provider not configured or its keys unreachable' })
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
  @ApiBadRequestResponse({ type: ErrorBody, description: '`X-Confirm-Withdraw: yes` missing' })
  async withdraw(
    @CurrentUser() user: AuthenticatedUser,
    @Headers('x-confirm-withdraw') confirmation: string | undefined,
  ): Promise<void> {
    if (confirmation?.trim().toLowerCase() !== 'yes') {
      throw new AppError('WITHDRAW_NOT_CONFIRMED', 'Send the header X-Confirm-Withdraw: yes to delete the account');
    }
    await this.users.delete(user.userId);
  }
}
