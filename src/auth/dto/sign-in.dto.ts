import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

export class AccessTokenSignInRequest {
  @ApiProperty({
    description: 'Access token issued by the identity provider (locally, `sandbox-<name>` signs in)',
    example: 'sandbox-alice',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  access_token: string;
}

export class IdTokenSignInRequest {
  @ApiProperty({
    description: 'OpenID Connect identity token (JWS) issued by the provider',
    example:
      'eyJhbGciOiJSUzI1NiIsImtpZCI6IjFhMmIzYyJ9.eyJpc3MiOiJodHRwczovL2FwcGxlaWQuYXBwbGUuY29tIiwic3ViIjoiMDAxMjM0LmFiY2QifQ.c2lnbmF0dXJl',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(8192)
  id_token: string;
}

export class SignInResponse {
  @ApiProperty({
    description: 'Service JWT; send it as Authorization: Bearer <token>',
    example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOjQyLCJpYXQiOjE3OTU1MDAwMDAsImV4cCI6MTc5NjEwNDgwMH0.c2lnbmF0dXJl',
  })
  token: string;
}

export class MeResponse {
  @ApiProperty({ example: 42 })
  user_id: number;
}
