/**
 * What the framework itself costs: a NestJS 11 app on the same Express adapter as the
 * service (`ServiceExpressAdapter`), one `@Get` handler returning
 * the same body as a value (Nest serialises it), no middleware, pipes, guards or
 * interceptors, logger off. The reference of the "cache hit ≥ 90% of a bare NestJS route"
 * target. Run as its own process: `node bare-nest-anchor.js <bodies.json>`; tells its parent
 * the port over IPC.
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { Controller, Get, Module, NotFoundException, Req } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Request } from 'express';
import { ServiceExpressAdapter } from '../../src/common/http/express-adapter';
import type { AnchorBodies, AnchorReady } from './anchor-protocol';

const { bodies } = JSON.parse(readFileSync(process.argv[2], 'utf8')) as AnchorBodies;
const values = new Map(Object.entries(bodies).map(([url, json]) => [url, JSON.parse(json) as unknown]));

@Controller()
class AnchorController {
  /** Every URL of the measured routes; the body is looked up by the URL as requested. */
  @Get('*path')
  answer(@Req() req: Request): unknown {
    const value = values.get(req.originalUrl);
    if (value === undefined) throw new NotFoundException();
    return value;
  }
}

@Module({ controllers: [AnchorController] })
class AnchorModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(AnchorModule, new ServiceExpressAdapter(), { logger: false });
  await app.listen(0, '127.0.0.1');
  process.send?.({ port: (app.getHttpServer().address() as AddressInfo).port } satisfies AnchorReady);
  process.on('disconnect', () => void app.close().then(() => process.exit(0)));
}

void main();
