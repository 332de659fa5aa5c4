import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { ListingsModule } from '../listings/listings.module';
import { TestHelpersController } from './test-helpers.controller';
import { TestHelpersService } from './test-helpers.service';
import { TestModeOnlyMiddleware } from './test-mode-only.middleware';

/** The test-mode sandbox: /v1/test-helpers/listings/:id/{publish,expire,messages,favorites}. */
@Module({
  imports: [ListingsModule],
  controllers: [TestHelpersController],
  providers: [TestHelpersService],
})
export class TestHelpersModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(TestModeOnlyMiddleware).forRoutes(TestHelpersController);
  }
}
