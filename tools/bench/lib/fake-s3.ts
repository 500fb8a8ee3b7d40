import { createHash, randomBytes } from 'crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'http';
import { AddressInfo } from 'net';

/**
 * A tiny in-memory S3 (path-style, no authentication, no persistence) that only serves the
 * requests the bench clients send: bucket create/head/location/list/delete-objects, object
 * put/get/head/delete and multipart upload. It exists so `run.ts selftest` can check the bench
 * tooling (warp invocation and parsing, the SDK load generator, the RSS sampler, the results
 * writer) without a working gateway. It is not a reference for S3 semantics.
 */
export class FakeS3 {
  private server?: Server;
  private readonly buckets = new Map<string, Map<string, { body: Body; etag: string; modified: Date }>>();
  private readonly uploads = new Map<string, { bucket: string; key: string; parts: Map<number, Body> }>();
  /**
   * Bodies are kept only for keys that start with `keepPrefix` (all keys when it is ''); other
   * objects are remembered by size (GET returns zeros), so long runs use no memory.
   */
  constructor(private readonly keepPrefix = '') {}

  async start(port = 0): Promise<string> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((e) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(e));
      });
    });
    this.server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    const s = this.server;
    if (!s) return;
    await new Promise<void>((resolve) => {
      s.close(() => resolve());
      s.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const [, bucket, ...rest] = url.pathname.split('/');
    const key = rest.length ? decodeURIComponent(rest.join('/')) : '';
    const q = url.searchParams;
    const method = req.method ?? 'GET';
    const send = (status: number, body = '', headers: Record<string, string | number> = {}) => {
      res.writeHead(status, { 'Content-Length': Buffer.byteLength(body), 'x-amz-request-id': 'FAKE', ...headers });
      res.end(body);
    };
    const xml = (status: number, body: string) => send(status, `<?xml version="1.0" encoding="UTF-8"?>\n${body}`, { 'Content-Type': 'application/xml' });

    if (!bucket) return xml(200, '<ListAllMyBucketsResult><Buckets></Buckets></ListAllMyBucketsResult>');
    const objects = this.buckets.get(bucket);
    if (!key) {
      if (method === 'PUT') {
        await drain(req);
        if (!objects) this.buckets.set(bucket, new Map());
        return send(200);
      }
      if (!objects) return xml(404, `<Error><Code>NoSuchBucket</Code><BucketName>${bucket}</BucketName></Error>`);
      if (method === 'HEAD') return send(200);
      if (method === 'DELETE') {
        this.buckets.delete(bucket);
        return send(204);
      }
      if (method === 'GET' && q.has('location')) return xml(200, '<LocationConstraint xmlns="http://s3.amazonaws.com/doc/2006-03-01/"></LocationConstraint>');
      if (method === 'GET' && (q.has('versioning') || q.has('object-lock'))) return xml(200, '<VersioningConfiguration/>');
      if (method === 'POST' && q.has('delete')) {
        const body = (await readAll(req)).toString();
        const keys = [...body.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => unescapeXml(m[1]));
        keys.forEach((k) => objects.delete(k));
        return xml(200, `<DeleteResult>${keys.map((k) => `<Deleted><Key>${escapeXml(k)}</Key></Deleted>`).join('')}</DeleteResult>`);
      }
      if (method === 'GET') {
        const prefix = q.get('prefix') ?? '';
        const after = q.get('continuation-token') ?? q.get('start-after') ?? '';
        const max = Math.min(1000, Number(q.get('max-keys') ?? 1000));
        const keys = [...objects.keys()].filter((k) => k.startsWith(prefix) && k > after).sort();
        const page = keys.slice(0, max);
        const truncated = keys.length > max;
        const contents = page
          .map((k) => {
            const o = objects.get(k)!;
            return `<Contents><Key>${escapeXml(k)}</Key><LastModified>${o.modified.toISOString()}</LastModified><ETag>"${o.etag}"</ETag><Size>${o.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
          })
          .join('');
        const next = truncated ? `<NextContinuationToken>${escapeXml(page[page.length - 1])}</NextContinuationToken>` : '';
        return xml(200, `<ListBucketResult><Name>${bucket}</Name><Prefix>${escapeXml(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${max}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${contents}${next}</ListBucketResult>`);
      }
      return send(405);
    }
    if (!objects) return xml(404, `<Error><Code>NoSuchBucket</Code></Error>`);

    if (method === 'POST' && q.has('uploads')) {
      await drain(req);
      const id = randomBytes(8).toString('hex');
      this.uploads.set(id, { bucket, key, parts: new Map() });
      return xml(200, `<InitiateMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${escapeXml(key)}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`);
    }
    if (method === 'PUT' && q.has('uploadId')) {
      const up = this.uploads.get(q.get('uploadId')!);
      if (!up) return xml(404, '<Error><Code>NoSuchUpload</Code></Error>');
      const body = await this.readBody(req, key);
      up.parts.set(Number(q.get('partNumber')), body);
      return send(200, '', { ETag: `"${md5(body)}"` });
    }
    if (method === 'POST' && q.has('uploadId')) {
      const id = q.get('uploadId')!;
      const up = this.uploads.get(id);
      await drain(req);
      if (!up) return xml(404, '<Error><Code>NoSuchUpload</Code></Error>');
      this.uploads.delete(id);
      const parts = [...up.parts.entries()].sort((a, b) => a[0] - b[0]).map(([, b]) => b);
      const body = parts.every((p) => p instanceof Buffer) ? Buffer.concat(parts as Buffer[]) : new SizeOnly(parts.reduce((n, p) => n + p.length, 0));
      objects.set(key, { body, etag: `${md5(body)}-${up.parts.size}`, modified: new Date() });
      return xml(200, `<CompleteMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${escapeXml(key)}</Key><ETag>"${objects.get(key)!.etag}"</ETag></CompleteMultipartUploadResult>`);
    }
    if (method === 'DELETE' && q.has('uploadId')) {
      this.uploads.delete(q.get('uploadId')!);
      return send(204);
    }
    if (method === 'PUT') {
      const body = await this.readBody(req, key);
      const etag = md5(body);
      objects.set(key, { body, etag, modified: new Date() });
      return send(200, '', { ETag: `"${etag}"` });
    }
    if (method === 'DELETE') {
      objects.delete(key);
      return send(204);
    }
    const o = objects.get(key);
    if (!o) return xml(404, `<Error><Code>NoSuchKey</Code><Key>${escapeXml(key)}</Key></Error>`);
    const headers = { 'Content-Length': o.body.length, ETag: `"${o.etag}"`, 'Last-Modified': o.modified.toUTCString(), 'Content-Type': 'application/octet-stream', 'x-amz-request-id': 'FAKE' };
    if (method === 'HEAD') {
      res.writeHead(200, headers);
      return void res.end();
    }
    res.writeHead(200, headers);
    if (o.body instanceof SizeOnly) {
      await writeZeros(res, o.body.length);
      return void res.end();
    }
    res.end(o.body);
  }

  /** The payload, with aws-chunked framing removed; only its length when bodies are not kept. */
  private async readBody(req: IncomingMessage, key: string): Promise<Body> {
    const keep = key.startsWith(this.keepPrefix);
    const chunked = String(req.headers['x-amz-content-sha256'] ?? '').startsWith('STREAMING-');
    if (!keep && !chunked) return new SizeOnly(await drain(req));
    const raw = await readAll(req);
    const body = chunked ? decodeAwsChunked(raw) : raw;
    return keep ? body : new SizeOnly(body.length);
  }
}

/** An object remembered by its length only (GET returns zeros). */
class SizeOnly {
  constructor(readonly length: number) {}
}
type Body = Buffer | SizeOnly;

const ZEROS = Buffer.alloc(1024 * 1024);

async function writeZeros(res: ServerResponse, n: number): Promise<void> {
  for (let left = n; left > 0; left -= ZEROS.length) {
    if (!res.write(left >= ZEROS.length ? ZEROS : ZEROS.subarray(0, left))) await new Promise((r) => res.once('drain', r));
  }
}

function md5(b: Body): string {
  return b instanceof SizeOnly ? createHash('md5').update(`size${b.length}`).digest("hex") : createHash('md5').update(b).digest('hex');
}

function decodeAwsChunked(raw: Buffer): Buffer {
  const out: Buffer[] = [];
  let pos = 0;
  for (;;) {
    const eol = raw.indexOf('\r\n', pos);
    if (eol < 0) break;
    const size = parseInt(raw.subarray(pos, eol).toString().split(';')[0], 16);
    if (!size) break;
    out.push(raw.subarray(eol + 2, eol + 2 + size));
    pos = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function drain(req: IncomingMessage): Promise<number> {
  let n = 0;
  for await (const c of req) n += (c as Buffer).length;
  return n;
}

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function unescapeXml(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
}
