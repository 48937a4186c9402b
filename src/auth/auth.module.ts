import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import type { AuthConfig } from './auth.config';
import { APP_CONFIG } from '../config/config.module';
import { UsersModule } from '../users/users.module';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { JwtAuthGuard } from './jwt-auth.guard';
import { JwtStrategy } from './jwt.strategy';
import { OptionalJwtAuthGuard } from './optional-jwt-auth.guard';
import { ServiceTokenService } from './service-token.service';

@Module({
  imports: [
    UsersModule,
    PassportModule,
    JwtModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AuthConfig) => ({
        secret: config.jwt.secret,
        signOptions: { algorithm: 'HS256' },
        // Expiry is judged by ServiceTokenService against the injectable clock.
        verifyOptions: { algorithms: ['HS256'], ignoreExpiration: true },
      }),
    }),
  ],
  controllers: [AuthController],
  providers: [AuthService, ServiceTokenService, JwtStrategy, JwtAuthGuard, OptionalJwtAuthGuard],
  exports: [ServiceTokenService, JwtAuthGuard, OptionalJwtAuthGuard],
})
export class AuthModule {}
