import { Module } from '@nestjs/common';
import { ListingsModule } from '../listings.module';
import { ExpiryService } from './expiry.service';

/** Listing expiry, for the worker role: ExpiryService.sweep runs every EXPIRY_SWEEP_EVERY. */
@Module({
  imports: [ListingsModule],
  providers: [ExpiryService],
  exports: [ExpiryService],
})
export class ExpiryModule {}
