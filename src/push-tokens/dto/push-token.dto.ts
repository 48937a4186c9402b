import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsIn, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { FCM_TOKEN_MAX_LENGTH, PUSH_PLATFORMS, type PushPlatform } from '../push-token.entity';

/** Printable ASCII without spaces: FCM tokens are URL-safe text, so anything else is not one. */
const FCM_TOKEN_PATTERN = /^[\x21-\x7e]+$/;

/** The same rules for registering and deleting: a token that cannot be registered cannot be stored. */
function FcmTokenField(): PropertyDecorator {
  return applyDecorators(
    ApiProperty({
      description: 'FCM registration token of the device',
      example: 'fMEGq3kZQ0e0b8sX:APA91bHk2vR7xq',
      maxLength: FCM_TOKEN_MAX_LENGTH,
    }),
    IsDefined({ message: 'fcm_token is required' }),
    IsString(),
    MinLength(1, { message: 'fcm_token must not be empty' }),
    MaxLength(FCM_TOKEN_MAX_LENGTH),
    Matches(FCM_TOKEN_PATTERN, { message: 'fcm_token must be printable ASCII without spaces' }),
  );
}

export class RegisterPushTokenRequest {
  @FcmTokenField()
  fcm_token: string;

  @ApiProperty({ enum: PUSH_PLATFORMS, example: 'ios' })
  @IsDefined({ message: 'platform is required' })
  @IsIn(PUSH_PLATFORMS, { message: 'platform must be ios or android' })
  platform: PushPlatform;
}

export class UnregisterPushTokenRequest {
  @FcmTokenField()
  fcm_token: string;
}
