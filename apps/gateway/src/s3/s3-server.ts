import { IncomingMessage, Server, ServerResponse } from 'http';
import { randomBytes } from 'crypto';
import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { parseQueryString, S3Error } from '@ostore/s3/protocol';
import { ContextLogger, JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import type { GatewayConfig } from '../config/gateway.config';
import { closeGracefully, listen } from '../http-listen';
import { AccessControl, concealExistence } from './access';
import { resolveAddressing } from './addressing';
import { Authenticator } from './authenticator';
import { CorsResponder } from './cors-responder';
import { errorBody, toS3Error } from './error-response';
import { resolveOperation, unconfiguredSubresource } from './operations';
import { S3_HANDLERS, S3Handler } from './s3-handler';
import { S3Request } from './s3-request';
import { checkRequest } from './request-checks';
import { createS3Listener, lingerUntilBodyEnds, watchBodyIdle } from './s3-listener';
import { GATEWAY_CONFIG } from './tokens';

/**
 * The S3 HTTP endpoint: addressing, authentication, operation routing, access control, one
 * handler per operation, and S3 XML errors with `x-amz-request-id` on every response.
 * On shutdown it stops accepting connections and lets in-flight requests finish (bounded by the
 * app's shutdown deadline).
 */
/**
 * Request ids as S3 shapes them (16 upper-case hex digits): a random per-process prefix and a
 * counter, unique within the process and, with overwhelming likelihood, across gateways —
 * without a randomBytes call per request.
 */
const REQUEST_ID_PREFIX = randomBytes(3).toString('hex').toUpperCase();
let requestCounter = randomBytes(4).readUInt32BE(0);
export function nextRequestId(): string {
  requestCounter = (requestCounter + 1) % 0x10000000000;
  return REQUEST_ID_PREFIX + requestCounter.toString(16).toUpperCase().padStart(10, '0');
}

@Injectable()
export class S3Server implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private server?: Server;
  private readonly log: ContextLogger;
  private readonly handlers: Map<string, S3Handler>;
  private readonly requests;
  private readonly duration;
  private readonly bytesIn;
  private readonly bytesOut;
  private readonly inflight;

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(S3_HANDLERS) handlers: S3Handler[],
    private readonly auth: Authenticator,
    private readonly access: AccessControl,
    private readonly cors: CorsResponder,
    logger: JsonLogger,
    metrics: MetricsRegistry,
  ) {
    this.log = logger.forContext(S3Server.name);
    this.handlers = new Map(handlers.map((h) => [h.operation, h]));
    this.requests = metrics.counter('ostore_s3_requests_total', 'S3 requests by operation and HTTP status', ['operation', 'status']);
    this.duration = metrics.histogram('ostore_s3_request_duration_seconds', 'S3 request latency until the response ends', ['operation']);
    this.bytesIn = metrics.counter('ostore_s3_received_bytes_total', 'Body bytes received from S3 clients', ['operation']);
    this.bytesOut = metrics.counter('ostore_s3_sent_bytes_total', 'Bytes sent to S3 clients', ['operation']);
    this.inflight = metrics.gauge('ostore_s3_inflight_requests', 'S3 requests being served');
  }

  async onApplicationBootstrap(): Promise<void> {
    this.server = createS3Listener(this.config.s3.listener, (req, res) => void this.handle(req, res));
    await listen(this.server, this.config.s3.port, this.config.s3.host);
    this.log.info('S3 endpoint listening', { host: this.config.s3.host, port: this.config.s3.port });
  }

  async beforeApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await closeGracefully(server);
    this.log.info('S3 endpoint closed');
  }

  private async handle(raw: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = process.hrtime.bigint();
    const requestId = nextRequestId();
    const url = raw.url ?? '/';
    const q = url.indexOf('?');
    const rawPath = q < 0 ? url : url.slice(0, q);
    let req: S3Request;
    try {
      const where = resolveAddressing(raw.headers.host, rawPath, this.config.s3.domains);
      req = new S3Request(raw, res, requestId, raw.method ?? 'GET', rawPath, parseQueryString(q < 0 ? '' : url.slice(q + 1)), where.bucket, where.key, where.addressing);
    } catch (e) {
      req = new S3Request(raw, res, requestId, raw.method ?? 'GET', rawPath, [], undefined, undefined, 'path');
      this.fail(req, e);
      return;
    }
    this.inflight.inc();
    watchBodyIdle(raw, res, this.config.s3.listener.requestIdleTimeoutMs, () => this.stalled(req));
    // Bytes read from the socket (headers included); a 'data' listener here would start the body flowing too early.
    const socketReadAtStart = raw.socket.bytesRead;
    // Bytes written likewise (headers included): getHeader() does not see headers given to writeHead().
    const socketWrittenAtStart = raw.socket.bytesWritten;
    res.once('close', () => {
      this.inflight.dec();
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.requests.inc({ operation: req.operation, status: String(res.statusCode) });
      this.duration.observe({ operation: req.operation }, seconds);
      this.bytesIn.inc({ operation: req.operation }, Math.max(0, raw.socket.bytesRead - socketReadAtStart));
      const sent = raw.socket.bytesWritten - socketWrittenAtStart;
      if (sent > 0) this.bytesOut.inc({ operation: req.operation }, sent);
      if (!res.writableFinished) this.log.warn('client went away before the response ended', { requestId, operation: req.operation });
    });

    try {
      if (raw.method === 'OPTIONS') {
        req.operation = 'CorsPreflight';
        await this.cors.preflight(req);
        return;
      }
      const operation = resolveOperation(req);
      req.operation = operation;
      if (operation === 'MethodNotAllowed') {
        throw new S3Error('MethodNotAllowed', 'The specified method is not allowed against this resource.', {
          extra: { Method: req.method, ResourceType: req.key !== undefined ? 'OBJECT' : req.bucket ? 'BUCKET' : 'SERVICE' },
        });
      }
      await this.auth.authenticate(req);
      if (operation.startsWith('NotImplemented:')) {
        throw new S3Error('NotImplemented', 'A header you provided implies functionality that is not implemented');
      }
      if (operation === 'GetUnconfiguredBucketSubresource') {
        await this.access.authorize(req, 'bucket-owner');
        checkRequest(req);
        const [code, message] = unconfiguredSubresource(req)!;
        throw S3Error.fromCode(code, message, { httpStatus: 404, extra: { BucketName: req.bucket! } });
      }
      const handler = this.handlers.get(operation);
      if (!handler) throw new S3Error('NotImplemented', `${operation} is not implemented`);
      if (handler.authenticate) await handler.authenticate(req);
      await this.access.authorize(req, handler.access);
      this.cors.decorate(req);
      checkRequest(req);
      if (expectsContinue(raw)) {
        res.writeContinue();
        req.continued = true;
      }
      await handler.handle(req);
    } catch (e) {
      // an access refusal carries the CORS headers too, so a browser can read it
      if (!res.headersSent) this.cors.decorate(req);
      this.fail(req, req.concealsExistence ? concealExistence(e) : e);
    }
  }

  /**
   * The body sent nothing for the idle timeout: 400 RequestTimeout, then the connection is cut,
   * which fails the handler's read of the body and releases what it buffered.
   */
  private stalled(req: S3Request): void {
    if (req.res.headersSent) {
      req.raw.destroy();
      return;
    }
    this.fail(req, new S3Error('RequestTimeout'), () => req.raw.destroy());
  }

  private fail(req: S3Request, e: unknown, afterSent?: () => void): void {
    const err = toS3Error(e);
    if (err.httpStatus >= 500) {
      this.log.error('request failed', { requestId: req.requestId, operation: req.operation, err: (err.cause as Error) ?? err });
    }
    const res = req.res;
    if (res.headersSent) {
      // Mid-stream failure: the only honest signal left is to cut the connection.
      res.destroy(err);
      return;
    }
    const drainable = canDrainUnreadBody(req.raw);
    // a body that waits for a 100 Continue never sent may never come: the connection closes after it
    const keepAlive = drainable && !(expectsContinue(req.raw) && !req.continued && !req.raw.complete && !req.raw.readableEnded);
    const body = req.method === 'HEAD' || err.httpStatus === 304 ? undefined : Buffer.from(errorBody(err, req.resource, req.requestId));
    const headers: Record<string, string | number> = {
      'x-amz-request-id': req.requestId,
      'x-amz-id-2': req.requestId,
      Server: 'OStore',
      ...err.headers,
    };
    if (body) {
      headers['Content-Type'] = 'application/xml';
      headers['Content-Length'] = body.length;
    }
    if (!keepAlive) headers['Connection'] = 'close';
    res.writeHead(err.httpStatus, headers);
    res.end(body, afterSent);
    if (!req.raw.readableEnded && !afterSent) {
      discardUnreadBody(req);
      // the connection may close after this answer (the client's Connection: close, or a body that
      // waits for a 100 Continue): not under a client still sending its body (RFC 9112 §9.6)
      if (drainable) lingerUntilBodyEnds(req.raw);
    }
  }
}

/**
 * Reads and discards the rest of a refused request's body, so that its client can finish sending
 * it and read the answer (a connection closed under a client still writing fails it with EPIPE).
 * The decoder or verifier the body was piped into is unpiped first (nobody reads it any more: its
 * backpressure would pause the request for good) and destroyed, so that whatever still waits on it
 * fails instead of waiting forever.
 */
function discardUnreadBody(req: S3Request): void {
  const raw = req.raw;
  raw.unpipe();
  if (req.body && req.body !== raw && !req.body.destroyed) req.body.destroy();
  raw.resume();
}

/** The most of a refused request's body the gateway reads and discards to keep its connection. */
const DRAIN_UNREAD_BODY_MAX_BYTES = 64 * 1024 * 1024;

function expectsContinue(raw: IncomingMessage): boolean {
  return /^\s*100-continue\s*$/i.test(raw.headers.expect ?? '');
}

/**
 * Whether the rest of a refused request's body is read and discarded: yes when the request has been
 * received whole (a GET's 404, a body read to its end) or when what is left of its body is at most
 * {@link DRAIN_UNREAD_BODY_MAX_BYTES} by its Content-Length (HTTP's framing delimits it; Node
 * discards it before reading the next request). Then the connection stays open, or closes only
 * once the body is in (lingerUntilBodyEnds). A longer or unframed rest closes it at once.
 */
function canDrainUnreadBody(raw: IncomingMessage): boolean {
  if (raw.complete || raw.readableEnded) return true;
  const declared = raw.headers['content-length'];
  if (declared === undefined || !/^\d+$/.test(declared)) return false;
  return Number(declared) <= DRAIN_UNREAD_BODY_MAX_BYTES;
}
