import { S3Error } from '@ostore/s3/protocol';
import type { S3Request } from './s3-request';

export type Headers = Record<string, string | number | undefined>;

function baseHeaders(req: S3Request, extra: Headers): Record<string, string | number> {
  const out: Record<string, string | number> = { 'x-amz-request-id': req.requestId, 'x-amz-id-2': req.requestId, Server: 'OStore' };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) out[k] = v;
  return out;
}

/** Sends an XML document (already rendered, with declaration). */
export function sendXml(req: S3Request, status: number, xml: string, headers: Headers = {}): void {
  const body = Buffer.from(xml, 'utf8');
  req.res.writeHead(status, baseHeaders(req, { 'Content-Type': 'application/xml', 'Content-Length': body.length, ...headers }));
  req.res.end(req.method === 'HEAD' ? undefined : body);
}

/** Sends a response without a body. */
export function sendEmpty(req: S3Request, status: number, headers: Headers = {}): void {
  req.res.writeHead(status, baseHeaders(req, { 'Content-Length': 0, ...headers }));
  req.res.end();
}

/** Starts a streamed response. */
export function startResponse(req: S3Request, status: number, headers: Headers = {}): void {
  req.res.writeHead(status, baseHeaders(req, headers));
}

/** Reads a small request body (XML documents) with a size cap. */
export async function readSmallBody(req: S3Request, maxBytes = 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      throw new S3Error('MalformedXML', `The XML you provided was larger than the maximum of ${maxBytes} bytes allowed`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
