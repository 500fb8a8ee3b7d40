import type { IncomingMessage, Server, ServerResponse } from 'http';
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ContextLogger, JsonLogger } from '@ostore/shared/observability';
import { CurrentUsageRouter } from './current-usage.router';
import { UsageOwnerClient } from './usage-owner.client';
import { FORWARDED_HEADER } from './usage-routes';

/** What a bucket id in the path must look like; anything else is left to Nest (HTTP 400). */
export const BUCKET_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const PREFIX = '/usage/buckets/';

/** Nest's own answer to an unexpected error, so that callers see one shape whichever path answered. */
const INTERNAL_ERROR = JSON.stringify({ statusCode: 500, message: 'Internal server error' });

/**
 * How long the management listener keeps an idle connection open. The other replica's forwards
 * (UsageOwnerClient) keep theirs that long less a second, so a forward after a quiet half-minute
 * still finds a warm socket (Node's default is 5 s).
 */
export const KEEP_ALIVE_MS = 30_000;

/** Answers a request and returns true, or returns false to leave it to the next listener. */
export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * `GET /usage/buckets/<uuid>` answered straight from the management server's `request` event:
 * the same router and the same JSON as the Nest controller (CurrentUsageController, which still
 * answers every other shape of the path, e.g. a malformed id with 400), without express's router,
 * Nest's pipeline and express's ETag hashing per request. This is the request every
 * current-usage answer costs once or (forwarded) twice.
 */
export function currentUsageHandler(
  router: Pick<CurrentUsageRouter, 'current'>,
  log?: ContextLogger,
): RequestHandler {
  return (req, res) => {
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !url.startsWith(PREFIX)) return false;
    const q = url.indexOf('?', PREFIX.length);
    const id = q < 0 ? url.slice(PREFIX.length) : url.slice(PREFIX.length, q);
    if (!BUCKET_ID.test(id)) return false;
    router.current(id.toLowerCase(), req.headers[FORWARDED_HEADER] !== undefined).then(
      (answer) => send(res, 200, JSON.stringify(answer)),
      (e: unknown) => {
        log?.error('current-usage request failed', { bucketId: id, err: e });
        send(res, 500, INTERNAL_ERROR);
      },
    );
    return true;
  };
}

function send(res: ServerResponse, status: number, body: string): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/**
 * Puts `handler` in front of the server's request listeners (express, installed by Nest): a
 * request it does not take goes on to them unchanged.
 */
export function putInFront(server: Server, handler: RequestHandler): void {
  const rest = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (handler(req, res)) return;
    for (const l of rest) l.call(server, req, res);
  });
}

/**
 * The current-usage endpoint's life: once the app is built, the plain route goes in front of the
 * management listener and the route map starts being kept fresh; at shutdown the map's re-reads
 * stop and the forwards' kept-alive sockets are closed.
 */
@Injectable()
export class CurrentUsageEndpoint implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(CurrentUsageRouter) private readonly router: CurrentUsageRouter,
    @Inject(UsageOwnerClient) private readonly owners: UsageOwnerClient,
    @Inject(JsonLogger) private readonly logger: JsonLogger,
    @Optional() @Inject(HttpAdapterHost) private readonly adapter?: HttpAdapterHost,
  ) {}

  onApplicationBootstrap(): void {
    this.router.start();
    const server = this.adapter?.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server || typeof server.listeners !== 'function') return;
    server.keepAliveTimeout = KEEP_ALIVE_MS;
    putInFront(server, currentUsageHandler(this.router, this.logger.forContext(CurrentUsageEndpoint.name)));
  }

  onApplicationShutdown(): void {
    this.router.stop();
    this.owners.close();
  }
}
