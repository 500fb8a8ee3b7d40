import { createServer, IncomingMessage, Server, ServerResponse } from 'http';
import type { Socket } from 'net';
import { renderErrorXml, S3Error } from '@ostore/s3/protocol';
import type { GatewayConfig } from '../config/gateway.config';

export type ListenerLimits = GatewayConfig['s3']['listener'];

/**
 * The S3 port's HTTP server with its limits: a headers timeout, a keep-alive idle timeout and a
 * connection limit. A whole request has no deadline (a 5 GiB upload may take long); a body that
 * stalls is cut by the request idle timeout (`watchBodyIdle`). Every request, including those
 * with an `Expect` header, goes to `handle`.
 */
export function createS3Listener(limits: ListenerLimits, handle: (req: IncomingMessage, res: ServerResponse) => void): Server {
  const server = createServer(
    {
      requestTimeout: 0,
      headersTimeout: limits.headersTimeoutMs,
      // Node checks the headers timeout at this interval (30 s by default, longer than the timeout itself)
      connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    handle,
  );
  // Expect: 100-continue is answered only once the request is authenticated and authorized (a
  // refused upload is refused before its body is sent); other Expect values are ignored, as S3
  // does, instead of Node's default 417.
  server.on('checkContinue', handle);
  server.on('checkExpectation', handle);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => answerClientError(err, socket));
  return server;
}

/**
 * Headers that took too long answer S3's 400 RequestTimeout (Node would send a bare 408), unless
 * the connection never sent a byte: it is closed silently. Other unparsable requests keep Node's
 * 400. The connection is closed either way. When the bytes that fail to parse follow a request
 * still being answered (a body longer than its Content-Length, whose rest reads as a next
 * request), that answer (BadDigest, say) is sent first, with `Connection: close`, and the
 * connection is closed after it.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  const pending = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (pending && socket.writable && !pending.writableFinished) {
    if (!pending.headersSent) pending.shouldKeepAlive = false;
    pending.once('close', () => socket.destroy());
    return;
  }
  if (!socket.writable || pending) {
    socket.destroy();
    return;
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    // A connection that never sent a byte (a client's spare pooled connection) is closed
    // without an answer: a 400 there is unsolicited, and a client that picks the connection
    // just then would read it as the answer to its own request.
    if (socket.bytesRead === 0) {
      socket.destroy();
      return;
    }
    const body = renderErrorXml({ code: 'RequestTimeout', message: new S3Error('RequestTimeout').message });
    socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/xml\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    return;
  }
  socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
}

/**
 * Calls `onIdle` when the request's body has sent nothing for `idleMs` (the socket's inactivity
 * timer, re-armed by every byte). Once the body is complete the timer only cuts a response the
 * client stopped reading; a request waiting on the backend is left alone.
 */
export function watchBodyIdle(raw: IncomingMessage, res: ServerResponse, idleMs: number, onIdle: () => void): void {
  // IncomingMessage emits 'timeout' only while its body is incomplete
  raw.setTimeout(idleMs, onIdle);
  res.on('timeout', (socket: Socket) => {
    if (res.headersSent && socket.writableLength > 0) socket.destroy();
  });
}

/** The longest a connection closing after an error answer waits for the rest of the request's body. */
export const LINGER_MAX_MS = 30_000;

/**
 * A lingering close (RFC 9112 §9.6): when the connection must close after this request's answer
 * (the client sent `Connection: close`, as the AWS SDK does with `Expect: 100-continue`, or the
 * refusal came before the 100 Continue the body waits for), Node closes the socket as soon as the
 * answer is written. A client still sending the body of a refused request then gets a
 * reset: its write fails with EPIPE, and the reset may discard the answer it has not read yet. So
 * the close waits until the body has arrived whole (its bytes read and discarded), the client
 * closes its side, the body idle timeout cuts it, or `maxMs` passes; then it proceeds as Node's.
 * Only for a body the gateway drains anyway (framed, at most 64 MiB left): a longer one is cut.
 */
export function lingerUntilBodyEnds(raw: IncomingMessage, maxMs = LINGER_MAX_MS): void {
  const socket = raw.socket as LingeringSocket;
  if (typeof socket.destroySoon !== 'function') return;
  // One override per socket, however many of its requests are refused: it waits for the latest.
  const lingering = socket[LINGER];
  if (lingering) {
    lingering.raw = raw;
    lingering.maxMs = maxMs;
    return;
  }
  const state = { raw, maxMs };
  socket[LINGER] = state;
  const destroySoon = socket.destroySoon;
  socket.destroySoon = function lingeringDestroySoon(this: Socket) {
    const body = state.raw;
    if (body.complete || this.destroyed) {
      destroySoon.call(this);
      return;
    }
    const cap = setTimeout(() => this.destroy(), state.maxMs).unref();
    const close = () => {
      clearTimeout(cap);
      if (!this.destroyed) destroySoon.call(this);
    };
    body.once('end', close);
    this.once('close', () => clearTimeout(cap));
  };
}

const LINGER = Symbol('ostore.linger');
type LingeringSocket = Socket & { destroySoon?: () => void; [LINGER]?: { raw: IncomingMessage; maxMs: number } };
