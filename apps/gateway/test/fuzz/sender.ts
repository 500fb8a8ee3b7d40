import http from 'http';
import { createHash } from 'crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '@aws-crypto/sha256-js';
import { deriveSigningKey } from '@ostore/s3/protocol';
import { encodeSignedChunkedBody, encodeUnsignedChunkedBody } from '@ostore/s3/protocol/testing';
import type { Credentials } from '@ostore/testing';
import type { FuzzRequest } from './requests';

/** The request as it went on the wire, for the failure report. */
export interface SentRequest {
  method: string;
  target: string;
  headers: Record<string, string>;
  body: Buffer;
}

export type Outcome =
  | { kind: 'response'; status: number; headers: http.IncomingHttpHeaders; body: Buffer; sent: SentRequest }
  | { kind: 'no-response'; error: string; sent: SentRequest }
  | { kind: 'hang'; sent: SentRequest }
  /** Node's HTTP client refused to send it (e.g. a control character in the path): not the gateway's doing. */
  | { kind: 'unsendable'; error: string };

const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function parseQuery(raw: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of raw.split('&')) {
    if (!part) continue;
    const [name, value = ''] = part.split(/=(.*)/s);
    const dec = (s: string) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    };
    out[dec(name)] = dec(value);
  }
  return out;
}

/** Signs (or mangles) and sends fuzz requests to one gateway over keep-alive connections. */
export class FuzzSender {
  private readonly agent: http.Agent;
  private readonly url: URL;
  private readonly signer: SignatureV4;

  constructor(
    endpoint: string,
    private readonly credentials: Credentials,
    concurrency: number,
    private readonly timeoutMs: number,
  ) {
    this.url = new URL(endpoint);
    this.agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
    this.signer = new SignatureV4({ credentials, region: 'us-east-1', service: 's3', sha256: Sha256, uriEscapePath: false });
  }

  close(): void {
    this.agent.destroy();
  }

  async send(r: FuzzRequest): Promise<Outcome> {
    let sent: SentRequest;
    try {
      sent = await this.prepare(r);
    } catch (e) {
      return { kind: 'unsendable', error: String(e) };
    }
    return this.transmit(sent);
  }

  private async prepare(r: FuzzRequest): Promise<SentRequest> {
    const host = this.url.host;
    const queryObject = typeof r.query === 'string' ? parseQuery(r.query) : r.query;
    const serialize = (q: Record<string, string>) =>
      Object.entries(q)
        .map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`)
        .join('&');
    const target = (qs: string) => (qs ? `${r.path}?${qs}` : r.path);
    const base = { method: r.method, protocol: 'http:', hostname: this.url.hostname, port: Number(this.url.port), path: r.path, query: queryObject };
    const rawTarget = typeof r.query === 'string' ? target(r.query) : target(serialize(r.query));
    const auth = r.auth;
    switch (auth.kind) {
      case 'anonymous':
        return { method: r.method, target: rawTarget, headers: { host, ...r.headers }, body: r.body };
      case 'sigv4':
      case 'mangled-header': {
        const headers = { host, 'x-amz-content-sha256': sha256(r.body), ...r.headers };
        const signed = (await this.signer.sign({ ...base, headers, body: r.body })).headers;
        if (auth.kind === 'mangled-header') signed['authorization'] = auth.mangle(signed['authorization']);
        return { method: r.method, target: rawTarget, headers: signed, body: r.body };
      }
      case 'presigned': {
        const presigned = await this.signer.presign({ ...base, headers: { host } }, { expiresIn: 300 });
        const query = auth.mangle(presigned.query as Record<string, string>);
        return { method: r.method, target: target(serialize(query)), headers: { host, ...r.headers }, body: r.body };
      }
      case 'chunked': {
        const mode = auth.signed ? (auth.trailers ? 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER' : 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD') : 'STREAMING-UNSIGNED-PAYLOAD-TRAILER';
        const signed = (await this.signer.sign({ ...base, headers: { host, 'x-amz-content-sha256': mode, ...r.headers } })).headers;
        const seedSignature = /Signature=([0-9a-f]+)/.exec(signed['authorization'])![1];
        const amzDate = signed['x-amz-date'];
        const date = amzDate.slice(0, 8);
        const options = { chunkSize: auth.chunkSize, trailers: auth.trailers };
        const body = auth.signed
          ? encodeSignedChunkedBody(auth.payload, { signingKey: deriveSigningKey(this.credentials.secretAccessKey, date, 'us-east-1', 's3'), seedSignature, scope: `${date}/us-east-1/s3/aws4_request`, amzDate }, options)
          : encodeUnsignedChunkedBody(auth.payload, options);
        return { method: r.method, target: rawTarget, headers: signed, body: auth.frame(body) };
      }
    }
  }

  private transmit(sent: SentRequest): Promise<Outcome> {
    return new Promise((resolve) => {
      let req: http.ClientRequest;
      try {
        const headers = { ...sent.headers, 'content-length': String(sent.body.length) };
        req = http.request({ host: this.url.hostname, port: Number(this.url.port), method: sent.method, path: sent.target, headers, agent: this.agent });
      } catch (e) {
        resolve({ kind: 'unsendable', error: String(e) });
        return;
      }
      const timer = setTimeout(() => {
        resolve({ kind: 'hang', sent });
        req.destroy();
      }, this.timeoutMs);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ kind: 'response', status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks), sent });
        });
        res.on('error', (e) => {
          clearTimeout(timer);
          resolve({ kind: 'no-response', error: String(e), sent });
        });
      });
      req.on('error', (e) => {
        clearTimeout(timer);
        resolve({ kind: 'no-response', error: String(e), sent });
      });
      req.end(sent.body);
    });
  }
}

function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}
