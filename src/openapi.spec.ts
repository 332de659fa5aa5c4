import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { buildOpenApiDocument } from './openapi';

@Controller('unnamed')
class UnnamedController {
  @Get()
  list(): string[] {
    return [];
  }
}

@Module({ controllers: [UnnamedController] })
class UnnamedModule {}

describe('buildOpenApiDocument', () => {
  it('refuses a route that openapi-operations.ts does not name', async () => {
    const app = await NestFactory.create(UnnamedModule, { preview: true, logger: false });
    try {
      expect(() => buildOpenApiDocument(app)).toThrow(
        'openapi-operations.ts has no entry for get /unnamed',
      );
    } finally {
      await app.close();
    }
  });
});
