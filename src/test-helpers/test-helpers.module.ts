import { Module } from '@nestjs/common';
import { ListingsModule } from '../listings/listings.module';
import { TestHelpersController } from './test-helpers.controller';
import { TestHelpersService } from './test-helpers.service';

/**
 * The test-mode sandbox: /v1/test-helpers/listings/:id/{publish,expire,messages,favorites}.
 * Live keys are turned away by testModeOnly, which configureApp mounts before any body is read.
 */
@Module({
  imports: [ListingsModule],
  controllers: [TestHelpersController],
  providers: [TestHelpersService],
  // The dashboard's Sandbox page calls it directly (never over HTTP).
  exports: [TestHelpersService],
})
export class TestHelpersModule {}
