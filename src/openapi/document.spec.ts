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
  it('refuses a route whose handler has no @Operation', async () => {
    const app = await NestFactory.create(UnnamedModule, { preview: true, logger: false });
    try {
      expect(() => buildOpenApiDocument(app)).toThrow(
        'get /unnamed has no @Operation(...) on its handler',
      );
    } finally {
      await app.close();
    }
  });
});
