import {
  Controller,
  Get,
  Inject,
  Logger,
  Req,
  Res,
  ServiceUnavailableException,
} from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  HealthCheckService,
  HealthIndicatorResult,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import type { Request, Response } from 'express';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { Public } from '../auth/auth.decorators';
import { ErrorCode } from '../common/errors/error-code';
import { errorEnvelope, metaFor } from '../common/http/envelope';
import { Operation } from '../common/http/operation.decorator';
import { PoolUsage, writePoolUsage } from '../platform/database/pool-usage';
import { PreparedReads } from '../platform/database/prepared-reads';
import { REDIS } from '../platform/redis/redis.module';
import { ShutdownDrain } from './shutdown-drain.service';

/** How long a database probe may take before readiness says down. */
const DATABASE_PING_TIMEOUT_MS = 2_000;

interface IndicatorDetails {
  [name: string]: { status: string; message?: string };
}

/** What readiness says of a dependency it cannot reach; the driver's own words go to the log. */
const UNREACHABLE = 'unreachable';
/**
 * A probe that timed out while every connection of its pool was in use, one of which came back
 * within BUSY_EVIDENCE_MS: the database answers, this process is just busy. Degraded, not down,
 * or a load balancer would take every busy replica out at once and turn slowness into an outage.
 * With nothing back for longer, the server is taken not to answer (frozen, cut off).
 */
const BUSY = 'busy: every connection in use';
const BUSY_EVIDENCE_MS = 10_000;
const busy = (usage: PoolUsage) => usage.saturated && usage.lastAnswerAgoMs < BUSY_EVIDENCE_MS;

/**
 * Liveness says the process answers; readiness says it can do its work. Without Redis the API
 * still serves (limits fail open, events wait in the outbox), so Redis only degrades readiness.
 * The answer is public: it names the failing check, never the driver's error text (addresses,
 * database and user names), which is logged instead.
 */
@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  private readonly logger = new Logger('Readiness');

  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly dataSource: DataSource,
    private readonly reads: PreparedReads,
    private readonly indicators: HealthIndicatorService,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly drain: ShutdownDrain,
  ) {}

  @Get('live')
  @Operation('getLiveness', 'Liveness: the process answers', { 200: { data: 'Liveness' } })
  live() {
    return { status: 'ok' };
  }

  /** 200 with each dependency's state; 503 (probes take any non-2xx as not ready) when one is down. */
  @Get('ready')
  @Operation(
    'getReadiness',
    'Readiness: database and Redis reachable',
    { 200: { data: 'Readiness' } },
    { extraErrors: [503] },
  )
  async ready(@Req() req: Request, @Res() res: Response): Promise<void> {
    try {
      const result = await this.health.check([
        () => this.checkShutdown(),
        () => this.checkDatabase(),
        () => this.checkReads(),
        () => this.checkRedis(),
      ]);
      res.status(200).json({ success: true, data: result, meta: metaFor(req) });
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const details = (error.getResponse() as { details?: IndicatorDetails }).details ?? {};
      res.status(503).json(
        errorEnvelope(
          req,
          ErrorCode.SERVER_ERROR,
          'Not ready.',
          Object.entries(details).map(([field, d]) => ({ field, message: d.message ?? d.status })),
        ),
      );
    }
  }

  private checkShutdown() {
    const session = this.indicators.check('process');
    return this.drain.isDraining ? session.down({ message: 'shutting down' }) : session.up();
  }

  private async checkDatabase(): Promise<HealthIndicatorResult> {
    const result = await this.database.pingCheck('database', { timeout: DATABASE_PING_TIMEOUT_MS });
    const { status, message } = result.database as { status: string; message?: string };
    if (status === 'up') return result;
    this.logFailure('database', message);
    const session = this.indicators.check('database');
    return busy(writePoolUsage(this.dataSource))
      ? session.degraded({ message: BUSY })
      : session.down({ message: UNREACHABLE });
  }

  /** The read pool connects on its own, with its own session settings: probed on its own too. */
  private async checkReads() {
    const session = this.indicators.check('reads');
    try {
      await this.reads.ping(DATABASE_PING_TIMEOUT_MS);
      return session.up();
    } catch (error) {
      this.logFailure('reads', (error as Error).message);
      return busy(this.reads.usage())
        ? session.degraded({ message: BUSY })
        : session.down({ message: UNREACHABLE });
    }
  }

  private async checkRedis() {
    const session = this.indicators.check('redis');
    try {
      await this.redis.ping();
      return session.up();
    } catch (error) {
      this.logFailure('redis', (error as Error).message);
      return session.degraded({ message: UNREACHABLE });
    }
  }

  private logFailure(check: string, reason: string | undefined): void {
    this.logger.warn({ check, reason }, 'Readiness check failed');
  }
}
