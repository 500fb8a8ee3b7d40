import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '@aws-crypto/sha256-js';
import { createHash } from 'crypto';
import { existsSync, readdirSync, statSync } from 'fs';
import { join } from 'path';
import { S3ServiceException } from '@aws-sdk/client-s3';
import type { Readable } from 'stream';
import type { GatewayUnderTest } from '@ostore/testing';

/** Resolves with the S3 error `p` fails with; fails the test when `p` succeeds. */
export async function s3Error(p: Promise<unknown>): Promise<S3ServiceException> {
  try {
    await p;
  } catch (e) {
    if (e instanceof S3ServiceException) return e;
    throw e;
  }
  throw new Error('expected the request to fail');
}

/** The number of files under `dir` (a filesystem block store's blocks), 0 when it does not exist. */
export function countFiles(dir: string): number {
  if (!existsSync(dir)) return 0;
  let n = 0;
  for (const entry of readdirSync(dir)) {
    const p = join(dir, entry);
    n += statSync(p).isDirectory() ? countFiles(p) : 1;
  }
  return n;
}

export async function bodyText(body: unknown): Promise<string> {
  return (await bodyBytes(body)).toString('utf8');
}

export async function bodyBytes(body: unknown): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of body as Readable) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
}


export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * Sends a hand-built request signed with SigV4 (header auth), for inputs the SDK refuses to send
 * (malformed XML, bad part numbers, missing Content-Length...). `rawPath` is sent as is.
 */
export async function signedRequest(
  endpoint: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
  method: string,
  rawPath: string,
  options: { query?: Record<string, string>; headers?: Record<string, string>; body?: string | Buffer; unsignedPayload?: boolean } = {},
): Promise<RawResponse> {
  const url = new URL(endpoint);
  const body = options.body === undefined ? undefined : Buffer.from(options.body);
  const headers: Record<string, string> = {
    host: url.host,
    'x-amz-content-sha256': options.unsignedPayload ? 'UNSIGNED-PAYLOAD' : createHash('sha256').update(body ?? Buffer.alloc(0)).digest('hex'),
    ...(options.headers ?? {}),
  };
  const signer = new SignatureV4({ credentials, region: 'us-east-1', service: 's3', sha256: Sha256, uriEscapePath: false });
  const signed = await signer.sign({ method, protocol: 'http:', hostname: url.hostname, port: Number(url.port), path: rawPath, query: options.query ?? {}, headers, body });
  const qs = Object.entries(options.query ?? {})
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
  const res = await fetch(`${endpoint}${rawPath}${qs ? `?${qs}` : ''}`, {
    method,
    headers: Object.fromEntries(Object.entries(signed.headers).filter(([k]) => k !== 'host')),
    body: method === 'GET' || method === 'HEAD' ? undefined : body,
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The <Code> of an S3 XML error body. */
export function errorCode(text: string): string | undefined {
  return /<Code>([^<]*)<\/Code>/.exec(text)?.[1];
}

/** Creates a user through the gateway's admin API and returns the access key generated for it. */
export async function createUser(gw: GatewayUnderTest, id: string, displayName = id): Promise<{ accessKeyId: string; secretAccessKey: string }> {
  const res = await fetch(`${gw.adminUrl}/admin/users`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${gw.adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ id, displayName }),
  });
  if (res.status !== 201) throw new Error(`creating user ${id}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { accessKey: { accessKeyId: string; secretAccessKey: string } }).accessKey;
}
