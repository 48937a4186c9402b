import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import type { AppConfig } from './app-config';
import { configureApp } from './app.setup';

@Module({})
class EmptyModule {}

describe('configureApp', () => {
  it('requires the application to be created with ServiceExpressAdapter', async () => {
    const app = await NestFactory.create<NestExpressApplication>(EmptyModule, new ExpressAdapter(), { logger: false });
    try {
      expect(() => configureApp(app, {} as AppConfig)).toThrow(/must be created with ServiceExpressAdapter/);
    } finally {
      await app.close();
    }
  });
});
