import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';
import { ShutdownDrain } from './shutdown-drain.service';

@Module({
  imports: [TerminusModule],
  controllers: [HealthController],
  providers: [ShutdownDrain],
})
export class HealthModule {}
