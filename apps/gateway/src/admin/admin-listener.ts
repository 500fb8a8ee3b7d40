import { createServer, Server } from 'http';
import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ContextLogger, JsonLogger } from '@ostore/shared/observability';
import type { GatewayConfig } from '../config/gateway.config';
import { closeGracefully, listen } from '../http-listen';
import { GATEWAY_CONFIG } from '../s3/tokens';

/**
 * The admin API's own listener (ADMIN_HOST, default 127.0.0.1, and ADMIN_PORT): the same Nest
 * routes as the management port, of which AdminTokenGuard lets only /admin through here and
 * nowhere else. Without ADMIN_PORT the admin API stays on the management port (a warning says so).
 */
@Injectable()
export class AdminListener implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private server?: Server;
  private readonly log: ContextLogger;

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly adapterHost: HttpAdapterHost,
    logger: JsonLogger,
  ) {
    this.log = logger.forContext(AdminListener.name);
  }

  async onApplicationBootstrap(): Promise<void> {
    const { host, port, token } = this.config.admin;
    if (port === undefined) {
      if (token) this.log.warn('the admin API shares the management port: set ADMIN_PORT to give it a listener of its own');
      return;
    }
    const server = createServer(this.adapterHost.httpAdapter.getInstance());
    this.server = server;
    await listen(server, port, host);
    this.log.info('admin API listening', { host, port, enabled: token !== undefined });
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.server) await closeGracefully(this.server);
  }
}
