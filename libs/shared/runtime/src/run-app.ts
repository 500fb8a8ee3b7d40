import 'reflect-metadata';
import { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CustomTransportStrategy } from '@nestjs/microservices';
import { JsonLogger, Lifecycle, MetricsRegistry } from '@ostore/shared/observability';
import { BaseConfig } from './base-config';
import { applyMigrations } from './migrate';

export interface RunAppOptions {
  config: BaseConfig;
  /** Builds the root module once the logger and metrics exist. */
  module: (deps: { logger: JsonLogger; metrics: MetricsRegistry }) => DynamicModule;
  /**
   * Makes the app hybrid: microservice transports (e.g. the queues' QueueTransport) taken from the
   * created app, connected with the app's own modules and global configuration, and started
   * after the app's init hooks and before the management endpoint listens. They stop inside
   * `app.close()`, before the clients close (see QueueTransport).
   */
  transports?: (app: INestApplication) => CustomTransportStrategy[];
}

/**
 * Boots one app: migrations (if enabled), the Nest application with JSON logs, its microservice
 * transports if any (a hybrid app: the queue consumers), the management HTTP server
 * (`/health/*`, `/metrics`), and graceful shutdown on SIGTERM/SIGINT: readiness drops first,
 * then Nest's shutdown hooks stop intake (the queue consumers drain and commit, or hand back),
 * finish or hand back in-flight work, and close clients last; a deadline forces exit if
 * something hangs.
 */
export async function runApp(options: RunAppOptions): Promise<INestApplication> {
  const { config } = options;
  const logger = new JsonLogger(config.app, config.logLevel);
  const log = logger.forContext('Bootstrap');
  const metrics = new MetricsRegistry(config.app);
  metrics
    .gauge('ostore_app_info', 'Static information about the running app', ['cluster'])
    .set({ cluster: config.cluster }, 1);

  if (config.migrateOnStart) {
    const started = Date.now();
    const result = await applyMigrations(config, log);
    log.info('migrations checked', {
      ...result,
      keyspace: config.cassandra.keyspace,
      durationMs: Date.now() - started,
    });
  }

  const app = await NestFactory.create(options.module({ logger, metrics }), {
    logger,
    abortOnError: false,
  });
  let shuttingDown = false;
  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    log.info('shutting down', { signal });
    app.get(Lifecycle).beginShutdown();
    const force = setTimeout(() => {
      log.error('shutdown deadline passed; exiting', { timeoutMs: config.shutdownTimeoutMs });
      logger.flush();
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    try {
      await app.close();
      log.info('stopped', { signal });
      logger.flush();
      process.exit(0);
    } catch (e) {
      log.error('error during shutdown', { err: e });
      logger.flush();
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  const transports = options.transports?.(app) ?? [];
  if (transports.length > 0) {
    for (const strategy of transports) app.connectMicroservice({ strategy }, { inheritAppConfig: true });
    await app.init();
    await app.startAllMicroservices();
  }
  await app.listen(config.management.port, config.management.host);
  log.info('management endpoints listening', { host: config.management.host, port: config.management.port });
  return app;
}

/** For main.ts: any failure during boot is logged and exits non-zero. */
export function fatal(app: string): (err: unknown) => never {
  return (err: unknown) => {
    process.stderr.write(
      `${JSON.stringify({ level: 'fatal', app, msg: 'boot failed', err: { message: (err as Error)?.message, stack: (err as Error)?.stack } })}\n`,
    );
    process.exit(1);
  };
}
