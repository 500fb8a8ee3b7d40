import {
  Controller,
  DynamicModule,
  Get,
  Global,
  Inject,
  Injectable,
  Module,
  OnApplicationShutdown,
  Optional,
  Res,
} from '@nestjs/common';
import type { Response } from 'express';
import { checkReadiness, HEALTH_INDICATORS, HealthIndicator } from './health';
import { JsonLogger } from './logger';
import { MetricsRegistry } from './metrics';
import { registerReadinessMetrics } from './readiness.metrics';

/** Tracks whether the app is shutting down, so readiness drops before clients close. */
@Injectable()
export class Lifecycle implements OnApplicationShutdown {
  private stopping = false;
  get isStopping(): boolean {
    return this.stopping;
  }
  beginShutdown(): void {
    this.stopping = true;
  }
  onApplicationShutdown(): void {
    this.stopping = true;
  }
}

/** Collects indicators registered by other modules (`HealthRegistry.register`). */
@Injectable()
export class HealthRegistry {
  private readonly indicators: HealthIndicator[] = [];
  constructor(@Optional() @Inject(HEALTH_INDICATORS) initial?: HealthIndicator[]) {
    if (initial) this.indicators.push(...initial);
  }
  register(indicator: HealthIndicator): void {
    this.indicators.push(indicator);
  }
  list(): HealthIndicator[] {
    return [...this.indicators];
  }
}

@Controller()
export class ManagementController {
  constructor(
    private readonly metrics: MetricsRegistry,
    private readonly health: HealthRegistry,
    private readonly lifecycle: Lifecycle,
  ) {}

  @Get('health/live')
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('health/ready')
  async ready(@Res() res: Response): Promise<void> {
    const report = await checkReadiness(this.health.list());
    const ready = report.ready && !this.lifecycle.isStopping;
    res
      .status(ready ? 200 : 503)
      .json({ status: ready ? 'ok' : 'unavailable', stopping: this.lifecycle.isStopping, ...report });
  }

  @Get('metrics')
  async render(@Res() res: Response): Promise<void> {
    res.setHeader('Content-Type', this.metrics.contentType());
    res.send(await this.metrics.render());
  }
}

export interface ObservabilityOptions {
  app: string;
  logger: JsonLogger;
  metrics?: MetricsRegistry;
}

const READINESS_METRICS = Symbol('READINESS_METRICS');

/** Logger, metrics registry, `/health/live`, `/health/ready` and `/metrics` for one app. */
@Global()
@Module({})
export class ObservabilityModule {
  static forRoot(options: ObservabilityOptions): DynamicModule {
    const metrics = options.metrics ?? new MetricsRegistry(options.app);
    return {
      module: ObservabilityModule,
      controllers: [ManagementController],
      providers: [
        { provide: JsonLogger, useValue: options.logger },
        { provide: MetricsRegistry, useValue: metrics },
        HealthRegistry,
        Lifecycle,
        {
          provide: READINESS_METRICS,
          useFactory: (health: HealthRegistry) => registerReadinessMetrics(metrics, () => health.list()),
          inject: [HealthRegistry],
        },
      ],
      exports: [JsonLogger, MetricsRegistry, HealthRegistry, Lifecycle],
    };
  }
}
