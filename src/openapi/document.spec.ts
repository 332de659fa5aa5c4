import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { buildOpenApiDocument } from './document';

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
  it('refuses a route that operations.ts does not name', async () => {
    const app = await NestFactory.create(UnnamedModule, { preview: true, logger: false });
    try {
      expect(() => buildOpenApiDocument(app)).toThrow(
        'operations.ts has no entry for get /unnamed',
      );
    } finally {
      await app.close();
    }
  });
});
