/* Spec support only (never exported; uses http, so it must stay out of src/index.ts): records what real AWS SDK v3 clients put on the wire. */
import { Agent, createServer, IncomingMessage, request, ServerResponse } from 'http';
import type { AddressInfo } from 'net';
import { S3Client } from '@aws-sdk/client-s3';
import { parseQueryString, SigV4Request } from '../sigv4';

export const TEST_CREDENTIALS = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};

export interface CapturedRequest extends SigV4Request {
  /** The request target exactly as received. */
  url: string;
  body: Buffer;
}

export type Responder = (req: CapturedRequest, res: ServerResponse) => void;

/** The gateway's job in production: a Node request turned into what the verifier needs. */
export function toSigV4Request(req: IncomingMessage): SigV4Request {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const headers: Record<string, string | string[]> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i].toLowerCase();
    const value = req.rawHeaders[i + 1];
    const prev = headers[name];
    headers[name] = prev === undefined ? value : ([] as string[]).concat(prev, value);
  }
  return {
    method: req.method ?? 'GET',
    rawPath: q < 0 ? url : url.slice(0, q),
    query: q < 0 ? [] : parseQueryString(url.slice(q + 1)),
    headers,
  };
}

/** A loopback HTTP server that records requests and answers 200 (or what `respond` writes). */
export class CaptureServer {
  readonly requests: CapturedRequest[] = [];
  private readonly server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const captured: CapturedRequest = {
        ...toSigV4Request(req),
        url: req.url ?? '/',
        body: Buffer.concat(chunks),
      };
      this.requests.push(captured);
      if (this.respond) return this.respond(captured, res);
      const etag = '"d41d8cd98f00b204e9800998ecf8427e"';
      res.writeHead(200, { 'content-type': 'application/xml', etag });
      // CopyObject and UploadPartCopy answer 200 with a result document; SDKs fail on an empty one.
      res.end(
        req.headers['x-amz-copy-source']
          ? `<CopyObjectResult><ETag>${etag}</ETag></CopyObjectResult>`
          : undefined,
      );
    });
  });
  respond?: Responder;

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Sends a raw request target (path and query as given) to this server; resolves when answered. */
  async send(
    target: string,
    options: { method: string; headers: Record<string, string>; body?: string | Buffer },
  ): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.port,
          path: target,
          method: options.method,
          headers: options.headers,
        },
        (res) => res.resume().on('end', () => resolve(res.statusCode ?? 0)),
      );
      req.on('error', reject);
      req.end(options.body);
    });
  }

  /**
   * An S3Client as applications configure one. `virtualHost` makes it address buckets as
   * `<bucket>.s3.test.internal` and resolves every name to this loopback server.
   */
  client(options: { virtualHost?: boolean } = {}): S3Client {
    const endpoint = options.virtualHost
      ? `http://s3.test.internal:${this.port}`
      : `http://127.0.0.1:${this.port}`;
    const httpAgent = new Agent({
      lookup: ((_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) =>
        opts.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)) as never,
    });
    return new S3Client({
      region: 'us-east-1',
      endpoint,
      forcePathStyle: !options.virtualHost,
      credentials: TEST_CREDENTIALS,
      maxAttempts: 1,
      requestHandler: { httpAgent },
    });
  }
}
