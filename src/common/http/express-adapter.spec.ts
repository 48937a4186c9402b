import { IncomingMessage } from 'node:http';
import { Body, Controller, Get, HttpCode, Module, Post, Query, Req, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import type { Request, Response } from 'express';
import request from 'supertest';
import { ServiceExpressAdapter } from './express-adapter';

@Controller()
class ProbeController {
  @Get('echo')
  echo(@Query('word') word: string, @Req() req: Request) {
    return { word, header: req.get('x-probe'), path: req.path, isNodeRequest: req instanceof IncomingMessage };
  }

  /** Bytes of JSON with their type set, as the HTTP cache answers. */
  @Get('stored')
  stored(@Res({ passthrough: true }) res: Response) {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    return Buffer.from('{"word":"한"}', 'utf8');
  }

  @Post('echo')
  @HttpCode(201)
  post(@Body() body: unknown) {
    return { body };
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

async function probeApp(adapter: ExpressAdapter) {
  const app = await NestFactory.create<NestExpressApplication>(ProbeModule, adapter, { logger: false });
  await app.init();
  return { app };
}

describe('ServiceExpressAdapter', () => {
  it('serves requests as Express and Node do: query, headers, body, status, instanceof', async () => {
    const { app } = await probeApp(new ServiceExpressAdapter());
    try {
      const got = await request(app.getHttpServer()).get('/echo?word=%ED%95%9C').set('X-Probe', 'yes').expect(200);
      expect(got.headers['content-type']).toMatch(/^application\/json/);
      expect(got.body).toEqual({ word: '한', header: 'yes', path: '/echo', isNodeRequest: true });
      const posted = await request(app.getHttpServer()).post('/echo').send({ n: 1 }).expect(201);
      expect(posted.body).toEqual({ body: { n: 1 } });
      await request(app.getHttpServer()).get('/nowhere').expect(404);
    } finally {
      await app.close();
    }
  });

  it('sends a Buffer a handler returns as the bytes it holds, where Nest would send its JSON form', async () => {
    const { app } = await probeApp(new ServiceExpressAdapter());
    try {
      const got = await request(app.getHttpServer()).get('/stored').expect(200);
      expect(got.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(got.headers['content-length']).toBe(String(Buffer.byteLength('{"word":"한"}')));
      expect(got.body).toEqual({ word: '한' });
    } finally {
      await app.close();
    }
    const plain = await probeApp(new ExpressAdapter());
    try {
      const got = await request(plain.app.getHttpServer()).get('/stored').expect(200);
      expect(got.body).toMatchObject({ type: 'Buffer' });
    } finally {
      await plain.app.close();
    }
  });
});
