import { applyDecorators, Controller, Get, Header, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { AdRewardCallbackService } from './ad-reward-callback.service';
import { rawQueryOf } from './ssv-callback';
import { ApiErrors } from '../common/http/api-errors';

export class AdRewardCallbackResponse {
  @ApiProperty({ example: true, description: 'True when this callback granted the reward; false for a repeat of a granted transaction' })
  granted: boolean;
}

const QUERY_DOCS: { name: string; description: string }[] = [
  { name: 'ad_network', description: 'Ad source that served the ad' },
  { name: 'ad_unit', description: 'Ad unit id (checked against ADMOB_AD_UNIT_IDS when set)' },
  { name: 'custom_data', description: 'Custom data string set by the app (not used)' },
  { name: 'reward_amount', description: 'Reward amount of the ad unit (one callback always grants one credit)' },
  { name: 'reward_item', description: 'Reward item of the ad unit' },
  { name: 'timestamp', description: 'When the reward happened, milliseconds since the epoch; at most 1 hour old' },
  { name: 'transaction_id', description: 'Unique id of the reward; a repeat grants nothing' },
  { name: 'user_id', description: 'The service user id the app set in its server-side verification options' },
  { name: 'signature', description: 'URL-safe base64 DER ECDSA P-256/SHA-256 signature over the query before &signature=' },
  { name: 'key_id', description: 'Id of the published verifier key that signed' },
];

/** OpenAPI docs of the callback's query parameters (read from the raw query, not bound). */
function ApiSsvQuery(): MethodDecorator {
  return applyDecorators(...QUERY_DOCS.map(({ name, description }) => ApiQuery({ name, required: false, type: String, description })));
}

/**
 * The ad network's server-side verification callback. No JWT (the ad network
 * calls it), and a GET, so it is never rate limited.
 */
@ApiTags('ads')
@Controller('api/v1/adnet')
export class AdSsvController {
  constructor(private readonly callbacks: AdRewardCallbackService) {}

  @Get('ssv')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Rewarded-ad server-side verification callback (called by the ad network)',
    description:
      'Verifies the signature over the raw query string, then grants one quota credit (weekly_used - 1) to `user_id` ' +
      'once per `transaction_id`. A repeated callback answers 200 and grants nothing.',
  })
  @ApiSsvQuery()
  @ApiOkResponse({ type: AdRewardCallbackResponse })
  @ApiErrors({
    AD_CALLBACK_INVALID: 'the query is malformed (a parameter missing or not a number)',
    AD_CALLBACK_EXPIRED: 'the reward is more than an hour old',
    AD_UNIT_NOT_ALLOWED: 'the ad unit is not one of ADMOB_AD_UNIT_IDS',
    AD_USER_UNKNOWN: 'user_id names no user',
    AD_SIGNATURE_INVALID: 'the signature is missing or wrong, or key_id is unknown',
    AD_VERIFIER_KEYS_UNAVAILABLE: "the ad network's verifier keys could not be fetched",
  })
  async callback(@Req() req: Request): Promise<AdRewardCallbackResponse> {
    // The signature covers the bytes as sent: take them from the raw URL, never from the parsed query.
    return this.callbacks.handle(rawQueryOf(req.originalUrl));
  }
}
