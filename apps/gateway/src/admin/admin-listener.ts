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
 * nowhere else; the management port never serves it. Without a token the API is off and nothing
 * listens (so gateways without one, e.g. benches, can share a host without a port of their own).
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
    if (token === undefined) return;
    const server = createServer(this.adapterHost.httpAdapter.getInstance());
    this.server = server;
    await listen(server, port, host);
    this.log.info('admin API listening', { host, port });
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.server) await closeGracefully(this.server);
  }
}
