import { Module } from '@nestjs/common';
import { ListingsModule } from '../listings.module';
import { ExpiryService } from './expiry.service';

/** Listing expiry; its schedule is the scheduler module's. */
@Module({
  imports: [ListingsModule],
  providers: [ExpiryService],
  exports: [ExpiryService],
})
export class ExpiryModule {}
