import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { appConfig } from './platform/config/app.config';
import { configureApp } from './configure-app';
import { lowerProcessPriority, workerNiceness } from './platform/process/lower-priority';

async function bootstrap(): Promise<void> {
  // Read before the module graph exists: the role decides what that graph contains.
  const { processRole, port, workerLanes } = appConfig();
  const module = AppModule.forRole(processRole);
  if (processRole === 'worker') {
    // Imports and deliveries can wait a little; the API's answers should not wait for them.
    lowerProcessPriority(workerNiceness(workerLanes));
    const context = await NestFactory.createApplicationContext(module, { bufferLogs: true });
    context.useLogger(context.get(Logger));
    context.enableShutdownHooks();
    await context.init();
    return;
  }
  const app = await NestFactory.create<NestExpressApplication>(module, {
    bufferLogs: true,
    bodyParser: false,
  });
  await configureApp(app);
  await app.listen(port);
}

bootstrap().catch((error: unknown) => {
  // Config errors name the variable; print them plainly, not as a stack.
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
