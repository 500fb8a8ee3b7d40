import { DynamicModule, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { hostname, tmpdir } from 'os';
import { join } from 'path';
import { Clock } from '@ostore/shared/clock';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { KafkaClient } from '../kafka.client';
import { silentLog } from '../queue';
import { KafkaUsageSink } from './kafka-usage.sink';
import { UsageDeltaMetrics } from './usage-delta.metrics';
import { UsageDeltaPublisher, UsageDeltaSettings } from './usage-delta.publisher';
import { FileUsageDeltaSpool } from './usage-delta.spool';

/** Values of the USAGE_DELTAS switch. */
export const USAGE_DELTA_MODES = ['kafka', 'off'] as const;
export type UsageDeltaMode = (typeof USAGE_DELTA_MODES)[number];

export type UsageDeltaModuleOptions = Pick<UsageDeltaSettings, 'source' | 'sourceHost'> &
  Partial<Omit<UsageDeltaSettings, 'spool'>> & {
    /** How long the shutdown may take to send what is buffered (then the rest is spooled). */
    closeTimeoutMs: number;
    /** Directory of the spool of deltas that cannot wait in memory (none: they are dropped and counted). */
    spoolDir?: string;
  };

const OPTIONS = Symbol('USAGE_DELTA_OPTIONS');

@Injectable()
class UsageDeltaLifecycle implements OnApplicationShutdown {
  constructor(
    @Inject(UsageDeltaPublisher) private readonly publisher: UsageDeltaPublisher,
    @Inject(OPTIONS) private readonly options: UsageDeltaModuleOptions,
  ) {}

  /**
   * After every `beforeApplicationShutdown` (the S3 server has drained its requests, the
   * scheduler's consumers have stopped: no more deltas come) and before the global KafkaModule
   * closes the producer (global modules' hooks run last).
   */
  async onApplicationShutdown(): Promise<void> {
    await this.publisher.close(this.options.closeTimeoutMs);
  }
}

/**
 * The UsageDeltaPublisher over the app's KafkaClient (a global KafkaModule must be imported),
 * Clock, metrics and logger; pass `UsageDeltaPublisher` as the S3 core's usage recorder.
 */
@Module({})
export class UsageDeltaModule {
  static forRoot(options: UsageDeltaModuleOptions): DynamicModule {
    const { closeTimeoutMs: _, spoolDir, ...rest } = options;
    return {
      module: UsageDeltaModule,
      providers: [
        { provide: OPTIONS, useValue: options },
        {
          provide: UsageDeltaPublisher,
          useFactory: (kafka: KafkaClient, clock: Clock, registry?: MetricsRegistry, logger?: JsonLogger) =>
            new UsageDeltaPublisher(
              new KafkaUsageSink(kafka),
              clock,
              { ...rest, ...(spoolDir ? { spool: new FileUsageDeltaSpool(spoolDir, clock) } : {}) },
              new UsageDeltaMetrics(registry),
              logger?.forContext(UsageDeltaPublisher.name) ?? silentLog,
            ),
          inject: [KafkaClient, Clock, { token: MetricsRegistry, optional: true }, { token: JsonLogger, optional: true }],
        },
        UsageDeltaLifecycle,
      ],
      exports: [UsageDeltaPublisher],
    };
  }

  /** The module an app's usage configuration asks for, or undefined when deltas are off. */
  static fromConfig(
    source: UsageDeltaModuleOptions['source'],
    usage: UsageConfig,
    shutdownTimeoutMs: number,
  ): DynamicModule | undefined {
    if (usage.mode !== 'kafka') return undefined;
    return UsageDeltaModule.forRoot({
      source,
      sourceHost: usage.sourceHost,
      batchMax: usage.batchMax,
      lingerMs: usage.lingerMs,
      bufferMax: usage.bufferMax,
      closeTimeoutMs: usageCloseTimeoutMs(shutdownTimeoutMs),
      spoolDir: usageSpoolDir(source, usage),
    });
  }
}

/**
 * The spool directory of an app's usage configuration: USAGE_SPOOL_DIR, or
 * `<tmpdir>/ostore-usage-spool/<app>-<host>`; a gateway worker (GATEWAY_WORKERS > 1) gets its own
 * `worker-<n>` inside it, so that no two processes send (and remove) the same segments, and the
 * worker that replaces worker n sends what n left.
 */
export function usageSpoolDir(source: UsageDeltaModuleOptions['source'], usage: UsageConfig): string {
  const base = usage.spoolDir ?? join(tmpdir(), 'ostore-usage-spool', `${source}-${usage.sourceHost}`);
  return usage.worker === undefined ? base : join(base, `worker-${usage.worker}`);
}

/** The USAGE_* variables of an app's configuration, parsed. */
export interface UsageEnv {
  USAGE_DELTAS: UsageDeltaMode;
  USAGE_BATCH_MAX: number;
  USAGE_LINGER_MS: number;
  USAGE_BUFFER_MAX: number;
  /** Optional: the spool directory (default `<tmpdir>/ostore-usage-spool/<app>-<host>`). */
  USAGE_SPOOL_DIR?: string;
}

/** An app's usage delta settings (`mode: 'off'`: the S3 core's usage goes nowhere). */
export interface UsageConfig {
  mode: UsageDeltaMode;
  batchMax: number;
  lingerMs: number;
  bufferMax: number;
  /** This host's name (the pod name in Kubernetes), the deltas' `sourceHost`. */
  sourceHost: string;
  /** Where deltas that cannot wait in memory are spooled (unset: a directory under the tmpdir). */
  spoolDir?: string;
  /** This process's number among the gateway's workers (GATEWAY_WORKERS > 1): its spool is a subdirectory. */
  worker?: number;
}

export function usageConfigOf(env: UsageEnv, sourceHost = hostname()): UsageConfig {
  return {
    mode: env.USAGE_DELTAS,
    batchMax: env.USAGE_BATCH_MAX,
    lingerMs: env.USAGE_LINGER_MS,
    bufferMax: Math.max(env.USAGE_BUFFER_MAX, env.USAGE_BATCH_MAX),
    sourceHost,
    ...(env.USAGE_SPOOL_DIR ? { spoolDir: env.USAGE_SPOOL_DIR } : {}),
  };
}

/**
 * The part of an app's shutdown budget given to sending the last deltas: they are sent after
 * the app's own drain (requests, batches), so a quarter of the budget, at most 5 s.
 */
export function usageCloseTimeoutMs(shutdownTimeoutMs: number): number {
  return Math.min(5000, Math.floor(shutdownTimeoutMs / 4));
}
