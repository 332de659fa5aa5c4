import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';
import { ShutdownDrain } from './shutdown-drain.service';

@Module({
  // Terminus would log every failed probe at error, a deploy's drain included; the controller
  // logs a dependency's failure itself, at warn, and the drain is logged once when it starts.
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [ShutdownDrain],
})
export class HealthModule {}
