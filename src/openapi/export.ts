import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../app.module';
import { setGlobalPrefix } from '../global-prefix';
import { buildOpenApiDocument } from './document';

/**
 * `node dist/openapi/export.js [file]`: the OpenAPI document as /docs-json serves it, written to
 * `file` (or stdout), pretty-printed with a trailing newline. Runs from the build, because the
 * document needs the Swagger compiler plugin's DTO metadata. Preview mode builds the module graph
 * without instantiating a provider, so no database or Redis connection is opened.
 */
export async function exportOpenApiDocument(): Promise<string> {
  const app = await NestFactory.create(AppModule.forRole('api'), {
    preview: true,
    logger: false,
    bodyParser: false,
  });
  setGlobalPrefix(app);
  const text = `${JSON.stringify(buildOpenApiDocument(app), null, 2)}\n`;
  await app.close();
  return text;
}

if (require.main === module) {
  exportOpenApiDocument()
    .then((text) => {
      const file = process.argv[2];
      if (file) writeFileSync(file, text);
      else process.stdout.write(text);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
