import { IncomingMessage, type Server, ServerResponse } from 'node:http';
import { Body, Controller, Get, HttpCode, Module, Post, Query, Req, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import type { Express, Request, Response } from 'express';
import request from 'supertest';
import { configureApp } from '../../app.setup';
import type { AppConfig } from '../../config/app-config';
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

/** An app on `adapter` that records, for each request as it arrives (before Express takes it), whether it already has Express's prototypes. */
async function probeApp(adapter: ExpressAdapter) {
  const app = await NestFactory.create<NestExpressApplication>(ProbeModule, adapter, { logger: false });
  await app.init();
  const express = app.getHttpAdapter().getInstance() as Express;
  const arrivals: boolean[] = [];
  (app.getHttpServer() as Server).prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    arrivals.push(Object.getPrototypeOf(req) === express.request && Object.getPrototypeOf(res) === express.response);
  });
  return { app, arrivals };
}

describe('ServiceExpressAdapter', () => {
  it('builds each request and response on Express’s prototypes, so Express has nothing to change', async () => {
    const { app, arrivals } = await probeApp(new ServiceExpressAdapter());
    try {
      const agent = request.agent(app.getHttpServer());
      await agent.get('/echo?word=a').expect(200);
      await agent.get('/echo?word=b').expect(200);
      expect(arrivals).toEqual([true, true]);
    } finally {
      await app.close();
    }
    // Nest's own adapter hands Express plain Node objects, whose prototype Express then replaces.
    const plain = await probeApp(new ExpressAdapter());
    try {
      await request(plain.app.getHttpServer()).get('/echo?word=a').expect(200);
      expect(plain.arrivals).toEqual([false]);
    } finally {
      await plain.app.close();
    }
  });

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

  it('refuses the options it does not implement rather than ignoring them', () => {
    expect(() => new ServiceExpressAdapter().initHttpServer({ httpsOptions: {} })).toThrow(/plain HTTP/);
    expect(() => new ServiceExpressAdapter().initHttpServer({ forceCloseConnections: true })).toThrow(/plain HTTP/);
  });

  it('is the adapter configureApp requires', async () => {
    const { app } = await probeApp(new ExpressAdapter());
    try {
      expect(() => configureApp(app, {} as AppConfig)).toThrow(/must be created with ServiceExpressAdapter/);
    } finally {
      await app.close();
    }
  });
});
