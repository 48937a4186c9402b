import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsIn, IsNotEmpty, IsString, MaxLength, registerDecorator } from 'class-validator';
import { PREMIUM_TIERS, type PremiumTier } from '../../users/user.entity';

/**
 * An Android purchase token is stored as `store_purchases.store_ref`, a varchar(512)
 * in a unique index; real ones are about 150–200 characters. (An iOS token is a JWS
 * of a few kB, of which only the transaction id is stored.)
 */
const ANDROID_PURCHASE_TOKEN_MAX_LENGTH = 512;

function FitsStoreRefOnAndroid(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'fitsStoreRefOnAndroid',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `token must be at most ${ANDROID_PURCHASE_TOKEN_MAX_LENGTH} characters for android` },
      validator: {
        validate: (value: unknown, args) =>
          (args?.object as { platform?: unknown }).platform !== 'android' ||
          typeof value !== 'string' ||
          value.length <= ANDROID_PURCHASE_TOKEN_MAX_LENGTH,
      },
    });
}

export class VerifySubscriptionRequest {
  @ApiProperty({ enum: ['ios', 'android'] })
  @IsIn(['ios', 'android'], { message: 'platform must be ios or android' })
  platform: 'ios' | 'android';

  @ApiProperty({
    description: 'iOS: the signed transaction (JWS); Android: the purchase token',
    example: 'eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlF…',
  })
  @IsDefined({ message: 'token is required' })
  @IsString()
  @IsNotEmpty({ message: 'token is required' })
  @MaxLength(16_384)
  @FitsStoreRefOnAndroid()
  token: string;

  @ApiProperty({ example: 'service.pro.monthly', description: 'Cross-checked only; the tier comes from the store' })
  @IsDefined({ message: 'product_id is required' })
  @IsString()
  @IsNotEmpty({ message: 'product_id is required' })
  @MaxLength(255)
  product_id: string;
}

export class VerifySubscriptionResponse {
  @ApiProperty({ example: true, description: 'premium_until is later than now, grace included' })
  active: boolean;

  @ApiProperty({ enum: PREMIUM_TIERS })
  tier: PremiumTier;

  @ApiProperty({ type: String, nullable: true, required: false, example: '2026-12-21T03:00:00.000Z' })
  premium_until?: string | null;

  @ApiProperty({ required: false, example: 'service.pro.monthly', description: 'The product the store returned' })
  product_id?: string;
}
