import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { PeriodicJobs } from './periodic-jobs';

/** For the worker role, beside ScheduleModule.forRoot(): runs the features' `@Every` jobs. */
@Module({
  imports: [DiscoveryModule],
  providers: [PeriodicJobs],
})
export class SchedulingModule {}
