import { createServer, IncomingMessage, Server, ServerResponse } from 'http';
import { randomBytes } from 'crypto';
import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { GATEWAY_CONFIG } from './tokens';
import type { GatewayConfig } from '../config/gateway.config';

/**
 * The S3 HTTP listener. On shutdown it stops accepting connections and waits for in-flight
 * requests (bounded by the app's shutdown deadline).
 */
@Injectable()
export class S3Server implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private server?: Server;
  private readonly log;
  private readonly requests;

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    logger: JsonLogger,
    metrics: MetricsRegistry,
  ) {
    this.log = logger.forContext(S3Server.name);
    this.requests = metrics.counter('ostore_s3_requests_total', 'S3 requests by operation and status', [
      'operation',
      'status',
    ]);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.config.s3.port, this.config.s3.host, () => resolve());
    });
    this.log.info('S3 endpoint listening', { host: this.config.s3.host, port: this.config.s3.port });
  }

  async beforeApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    this.log.info('S3 endpoint closed');
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const requestId = randomBytes(8).toString('hex').toUpperCase();
    const body =
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
      `<Error><Code>NotImplemented</Code><Message>A header you provided implies functionality that is not implemented</Message><Resource>${escapeXml(req.url ?? '/')}</Resource><RequestId>${requestId}</RequestId></Error>`;
    req.resume();
    res.writeHead(501, {
      'Content-Type': 'application/xml',
      'x-amz-request-id': requestId,
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(body);
    this.requests.inc({ operation: 'unknown', status: '501' });
  }
}

function escapeXml(s: string): string {
  return s.replace(
    /[<>&'"]/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!,
  );
}
