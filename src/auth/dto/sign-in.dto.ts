import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

export class AccessTokenSignInRequest {
  @ApiProperty({ description: 'Access token issued by the identity provider' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  access_token: string;
}

export class IdTokenSignInRequest {
  @ApiProperty({ description: 'OpenID Connect identity token (JWS) issued by the provider' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(8192)
  id_token: string;
}

export class SignInResponse {
  @ApiProperty({ description: 'Service JWT; send it as Authorization: Bearer <token>' })
  token: string;
}

export class MeResponse {
  @ApiProperty({ example: 42 })
  user_id: number;
}
