import {
  Agent as HttpAgent,
  ClientRequest,
  IncomingMessage,
  request as httpRequest,
  RequestOptions,
} from 'http';
import { Agent as HttpsAgent, request as httpsRequest } from 'https';
import { FORWARDED_HEADER } from './usage-routes';

/** A current-usage answer as it travels over HTTP (dates as ISO strings). */
export interface CurrentUsageJson {
  bucketId: string;
  bytes: number;
  objects: number;
  deltaEvents: number;
  asOf: string;
  cut?: string;
  snapshotAgeSeconds?: number;
}

/** Why a forward failed. */
export class ForwardFailed extends Error {
  constructor(
    readonly reason: 'timeout' | 'unreachable' | 'status' | 'invalid',
    message: string,
  ) {
    super(message);
    this.name = ForwardFailed.name;
  }
}

/** A kept-alive socket the owner had closed meanwhile: nothing was answered on it, so it may be sent again. */
class StaleSocket extends Error {}

interface Target {
  request: (options: RequestOptions, cb: (res: IncomingMessage) => void) => ClientRequest;
  agent: HttpAgent;
  hostname: string;
  port: string;
}

/** One frozen header set for every forward (no per-request object). */
const HEADERS = Object.freeze({ [FORWARDED_HEADER]: '1', accept: 'application/json' });

/**
 * Kept-alive sockets, newest first. Node applies the server's `Keep-Alive: timeout=N` hint (less a
 * second) only when it is below the agent's own timeout, so the agent needs one: 60 s, above the
 * management listener's 30 s (KEEP_ALIVE_MS in current-usage.http.ts).
 */
const AGENT = {
  keepAlive: true,
  maxSockets: 64,
  maxFreeSockets: 16,
  scheduling: 'lifo',
  timeout: 60_000,
} as const;

/** Largest answer read (a usage answer is ~200 bytes). */
const MAX_BODY_BYTES = 64 * 1024;

/**
 * Asks the replica at `baseUrl` for a bucket's current usage, marked as forwarded (so it answers
 * itself), within `timeoutMs`. Plain node:http on one keep-alive agent per scheme, so a forward
 * reuses a warm socket (no TCP handshake, no name lookup) and skips fetch's per-request Web
 * objects (Request, Headers, AbortSignal, stream). The owner closes an idle socket after its
 * keep-alive timeout and the agent drops it one second before (the server's `Keep-Alive` hint);
 * a forward that still loses that race (reset before any byte of an answer on a reused socket) is
 * sent once more on a new socket within the same deadline. That is the same hop again, never a
 * second forward: the owner answers a forwarded request itself.
 */
export class UsageOwnerClient {
  private readonly http = new HttpAgent(AGENT);
  private readonly https = new HttpsAgent(AGENT);
  private readonly targets = new Map<string, Target | ForwardFailed>();

  async current(baseUrl: string, bucketId: string, timeoutMs: number): Promise<CurrentUsageJson> {
    const target = this.target(baseUrl);
    const path = `/usage/buckets/${bucketId}`;
    const deadline = Date.now() + timeoutMs;
    let answer: { status: number; body: string };
    try {
      answer = await this.send(target, path, baseUrl, timeoutMs);
    } catch (e) {
      if (!(e instanceof StaleSocket)) throw e;
      answer = await this.send(target, path, baseUrl, Math.max(1, deadline - Date.now()), true);
    }
    if (answer.status !== 200) throw new ForwardFailed('status', `${baseUrl} answered HTTP ${answer.status}`);
    let body: Partial<CurrentUsageJson>;
    try {
      body = JSON.parse(answer.body) as Partial<CurrentUsageJson>;
    } catch {
      throw new ForwardFailed('invalid', `${baseUrl} answered no JSON`);
    }
    if (
      body === null ||
      typeof body !== 'object' ||
      body.bucketId !== bucketId ||
      typeof body.bytes !== 'number' ||
      typeof body.objects !== 'number' ||
      typeof body.deltaEvents !== 'number' ||
      typeof body.asOf !== 'string'
    )
      throw new ForwardFailed('invalid', `${baseUrl} answered something else than the usage of ${bucketId}`);
    return body as CurrentUsageJson;
  }

  /** Closes the kept-alive sockets (app shutdown). */
  close(): void {
    this.http.destroy();
    this.https.destroy();
  }

  private target(baseUrl: string): Target {
    let t = this.targets.get(baseUrl);
    if (!t) {
      try {
        const url = new URL(baseUrl);
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`scheme ${url.protocol}`);
        const tls = url.protocol === 'https:';
        t = {
          request: tls ? httpsRequest : httpRequest,
          agent: tls ? this.https : this.http,
          hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: url.port || (tls ? '443' : '80'),
        };
      } catch (e) {
        t = new ForwardFailed('unreachable', `${baseUrl}: not an http(s) URL (${(e as Error).message})`);
      }
      this.targets.set(baseUrl, t);
    }
    if (t instanceof ForwardFailed) throw t;
    return t;
  }

  private send(
    target: Target,
    path: string,
    baseUrl: string,
    timeoutMs: number,
    retried = false,
  ): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      let settled = false;
      let answered = false;
      const fail = (e: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(e);
      };
      const req = target.request(
        {
          agent: target.agent,
          hostname: target.hostname,
          port: target.port,
          path,
          method: 'GET',
          headers: HEADERS,
        },
        (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_BODY_BYTES) {
              fail(new ForwardFailed('invalid', `${baseUrl} answered more than ${MAX_BODY_BYTES} bytes`));
              req.destroy();
            } else chunks.push(c);
          });
          res.on('end', () => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks, size).toString('utf8') });
          });
          res.on('error', (e) => fail(new ForwardFailed('unreachable', `${baseUrl}: ${e.message}`)));
        },
      );
      const timer = setTimeout(() => {
        fail(new ForwardFailed('timeout', `no answer from ${baseUrl} within ${timeoutMs} ms`));
        req.destroy();
      }, timeoutMs);
      req.on('error', (e: NodeJS.ErrnoException) => {
        const stale =
          !retried && !answered && req.reusedSocket && (e.code === 'ECONNRESET' || e.code === 'EPIPE');
        fail(
          stale ? new StaleSocket(e.message) : new ForwardFailed('unreachable', `${baseUrl}: ${e.message}`),
        );
      });
      req.end();
    });
  }
}
