import { createHash } from 'crypto';
import { Prng } from './prng';
import { encodePath, etag, httpDate, integer, key, rawQuery, text } from './values';
import { xmlBody, XmlRoot } from './xml-bodies';

/** What the fuzz run knows about the gateway's contents before it starts. */
export interface FuzzWorld {
  /** A private bucket whose objects must come out of the run unchanged; only read with a valid signature. */
  keep: { bucket: string; objects: ReadonlyArray<{ key: string; body: Buffer; etag: string }> };
  /** A bucket the run may do anything to. */
  work: { bucket: string; uploads: ReadonlyArray<{ key: string; uploadId: string }>; etags: readonly string[] };
}

/** How a generated request is authenticated; the mangling happens after signing. */
export type FuzzAuth =
  | { kind: 'sigv4' }
  | { kind: 'anonymous' }
  | { kind: 'mangled-header'; mangle: (authorization: string) => string }
  | { kind: 'presigned'; mangle: (query: Record<string, string>) => Record<string, string> }
  | { kind: 'chunked'; signed: boolean; payload: Buffer; chunkSize: number; trailers?: Record<string, string>; frame: (body: Buffer) => Buffer };

export interface FuzzRequest {
  family: string;
  method: string;
  /** The path as sent on the request line. */
  path: string;
  /** Signed as parsed when an object; sent as is (and signed as best we can) when a string. */
  query: Record<string, string> | string;
  headers: Record<string, string>;
  body: Buffer;
  auth: FuzzAuth;
  /** For GETs of a kept object: lets the run check a 206's bytes. */
  readsKept?: { key: string; body: Buffer };
}

const XML_OPS: ReadonlyArray<[root: XmlRoot, method: string, sub: string | undefined, onObject: boolean]> = [
  ['Delete', 'POST', 'delete', false],
  ['VersioningConfiguration', 'PUT', 'versioning', false],
  ['Tagging', 'PUT', 'tagging', false],
  ['LifecycleConfiguration', 'PUT', 'lifecycle', false],
  ['AccessControlPolicy', 'PUT', 'acl', false],
  ['Tagging', 'PUT', 'tagging', true],
  ['AccessControlPolicy', 'PUT', 'acl', true],
  ['CompleteMultipartUpload', 'POST', 'uploadId', true],
  ['CreateBucketConfiguration', 'PUT', undefined, false],
];

const QUERY_NAMES = ['list-type', 'prefix', 'delimiter', 'max-keys', 'start-after', 'continuation-token', 'marker', 'key-marker', 'version-id-marker', 'upload-id-marker',
  'encoding-type', 'fetch-owner', 'versions', 'uploads', 'uploadId', 'partNumber', 'part-number-marker', 'max-parts', 'max-uploads', 'versionId', 'tagging', 'acl',
  'attributes', 'response-content-type', 'response-content-disposition', 'response-expires', 'response-cache-control', 'location', 'delete', 'x-id', 'max-buckets'];

const objPath = (p: Prng, bucket: string, k: string) => `/${bucket}/${encodePath(p, k)}`;

function xmlCase(p: Prng, w: FuzzWorld): FuzzRequest {
  const [root, method, sub, onObject] = p.pick(XML_OPS);
  const upload = p.pick(w.work.uploads);
  let path = onObject ? objPath(p, w.work.bucket, root === 'CompleteMultipartUpload' && p.chance(0.8) ? upload.key : key(p)) : `/${w.work.bucket}`;
  if (root === 'CreateBucketConfiguration') path = `/${p.chance(0.7) ? `fz-${p.string('abcdefghij0123456789', p.int(1, 12))}` : encodePath(p, text(p, 70))}`;
  const query: Record<string, string> = sub === undefined ? {} : { [sub]: sub === 'uploadId' ? (p.chance(0.8) ? upload.uploadId : text(p, 40)) : '' };
  const body = xmlBody(p, root, w.work.etags);
  const headers: Record<string, string> = { 'content-type': p.pick(['application/xml', 'text/xml', 'application/octet-stream', '']) };
  if (p.chance(0.5)) headers['content-md5'] = p.chance(0.8) ? md5Base64(body) : text(p, 24);
  return { family: `xml:${root}`, method, path, query, headers, body, auth: { kind: 'sigv4' } };
}

function rangeCase(p: Prng, w: FuzzWorld): FuzzRequest {
  const obj = p.pick(w.keep.objects);
  const n = obj.body.length;
  const headers: Record<string, string> = {};
  const range = () =>
    p.oneOf<string>([
      [4, () => `bytes=${p.int(0, n + 2)}-${p.chance(0.3) ? '' : p.int(0, n + 2)}`],
      [2, () => `bytes=-${p.int(0, n + 2)}`],
      [1, () => `bytes=${p.int(0, 3)}-${p.int(4, 8)},${p.int(9, 12)}-${p.int(13, 20)}`],
      [1, () => `bytes=${integer(p)}-${integer(p)}`],
      [1, () => p.pick(['bytes=', 'bytes=-', 'bytes=--1', 'items=0-1', 'bytes 0-1', 'bytes=0-1-2', 'bytes=1-0', `bytes=0-${'9'.repeat(40)}`, 'bytes=ffff-', ''])],
    ]);
  if (p.chance(0.7)) headers['range'] = range();
  const known = [obj.etag, ...w.keep.objects.map((o) => o.etag)];
  if (p.chance(0.3)) headers['if-match'] = etag(p, known);
  if (p.chance(0.3)) headers['if-none-match'] = etag(p, known);
  if (p.chance(0.3)) headers['if-modified-since'] = httpDate(p);
  if (p.chance(0.3)) headers['if-unmodified-since'] = httpDate(p);
  const query: Record<string, string> = {};
  if (p.chance(0.15)) query['partNumber'] = integer(p);
  if (p.chance(0.1)) query['versionId'] = p.pick(['null', text(p, 30)]);
  if (p.chance(0.1)) query[p.pick(['response-content-type', 'response-content-disposition', 'response-expires', 'response-cache-control'])] = text(p, 40);
  const method = p.chance(0.75) ? 'GET' : 'HEAD';
  return { family: 'range', method, path: `/${w.keep.bucket}/${encodeURIComponent(obj.key)}`, query, headers, body: Buffer.alloc(0), auth: { kind: 'sigv4' }, readsKept: method === 'GET' ? obj : undefined };
}

function keyCase(p: Prng, w: FuzzWorld): FuzzRequest {
  const k = key(p);
  const inKeep = p.chance(0.3);
  const method = inKeep ? p.pick(['GET', 'HEAD']) : p.pick(['PUT', 'GET', 'HEAD', 'DELETE', 'PUT', 'POST']);
  const query: Record<string, string> = method === 'POST' ? { uploads: '' } : {};
  if (p.chance(0.2)) query[p.pick(['versionId', 'tagging', 'acl', 'attributes'])] = p.chance(0.5) ? '' : text(p, 20);
  const headers: Record<string, string> = {};
  if (query['attributes'] !== undefined) headers['x-amz-object-attributes'] = p.pick(['ETag', 'ObjectSize,StorageClass', 'Checksum,ObjectParts', text(p, 20)]);
  if (method === 'PUT' && p.chance(0.4)) {
    const header = p.pick(['content-type', 'cache-control', 'content-disposition', 'x-amz-meta-a', 'x-amz-tagging', 'x-amz-storage-class', 'x-amz-acl', 'expires', 'x-amz-checksum-crc32', 'x-amz-sdk-checksum-algorithm', 'x-amz-checksum-algorithm', 'content-md5', 'x-amz-website-redirect-location', 'x-amz-grant-read']);
    headers[header] = text(p, 60).replace(/[\r\n\u0000-\u001f\u007f-\uffff]/g, '');
  }
  const body = method === 'PUT' ? p.bytes(p.int(0, 300)) : Buffer.alloc(0);
  return { family: 'key', method, path: objPath(p, inKeep ? w.keep.bucket : w.work.bucket, k), query, headers, body, auth: { kind: 'sigv4' } };
}

function copyCase(p: Prng, w: FuzzWorld): FuzzRequest {
  const src = p.chance(0.6) ? `${w.keep.bucket}/${p.pick(w.keep.objects).key}` : `${p.pick([w.work.bucket, w.keep.bucket, 'nope'])}/${key(p)}`;
  const headers: Record<string, string> = { 'x-amz-copy-source': p.chance(0.8) ? encodePath(p, src) : encodePath(p, text(p, 40)) };
  if (p.chance(0.3)) headers['x-amz-copy-source-range'] = `bytes=${integer(p)}-${integer(p)}`;
  if (p.chance(0.3)) headers[p.pick(['x-amz-copy-source-if-match', 'x-amz-copy-source-if-none-match'])] = etag(p, w.keep.objects.map((o) => o.etag));
  if (p.chance(0.2)) headers[p.pick(['x-amz-copy-source-if-modified-since', 'x-amz-copy-source-if-unmodified-since'])] = httpDate(p);
  if (p.chance(0.3)) headers['x-amz-metadata-directive'] = p.pick(['COPY', 'REPLACE', text(p, 8)]);
  if (p.chance(0.2)) headers['x-amz-tagging-directive'] = p.pick(['COPY', 'REPLACE', text(p, 8)]);
  const upload = p.pick(w.work.uploads);
  const asPart = p.chance(0.3);
  const query: Record<string, string> = asPart ? { uploadId: upload.uploadId, partNumber: p.chance(0.7) ? String(p.int(1, 5)) : integer(p) } : {};
  return { family: 'copy', method: 'PUT', path: objPath(p, w.work.bucket, asPart ? upload.key : key(p)), query, headers, body: Buffer.alloc(0), auth: { kind: 'sigv4' } };
}

function listingCase(p: Prng, w: FuzzWorld): FuzzRequest {
  const bucket = p.pick([w.keep.bucket, w.work.bucket]);
  const onObject = p.chance(0.2);
  const path = p.chance(0.1) ? '/' : onObject ? objPath(p, w.work.bucket, p.pick(w.work.uploads).key) : `/${bucket}`;
  return { family: 'query', method: p.chance(0.9) ? 'GET' : p.pick(['HEAD', 'DELETE', 'OPTIONS', 'PATCH', 'POST']), path, query: rawQuery(p, QUERY_NAMES), headers: {}, body: Buffer.alloc(0), auth: { kind: 'sigv4' } };
}

/** Signature mangles that must make any server refuse the request (used on writes to the kept bucket). */
function invalidating(p: Prng): (a: string) => string {
  return p.pick<(a: string) => string>([
    (a) => a.replace(/Signature=([0-9a-f])/, (_m, c: string) => `Signature=${c === '0' ? '1' : '0'}`),
    (a) => a.replace(/Credential=([^/]+)/, 'Credential=$1X'),
    (a) => a.replace(/Signature=[0-9a-f]+/, `Signature=${p.string('0123456789abcdef', 64)}`),
    (a) => a.replace(/\/s3\/aws4_request/, `/${p.pick(['s4', 'iam', ''])}/aws4_request`),
    (a) => a.replace(/SignedHeaders=[^,]+/, 'SignedHeaders=host'),
  ]);
}

function anyMangle(p: Prng): (a: string) => string {
  return p.oneOf<(a: string) => string>([
    [3, () => invalidating(p)],
    [1, () => (a) => a.slice(0, p.int(0, a.length))],
    [1, () => (a) => a.replace(/, /g, p.pick([',', ' ,', ',  ', ',\t']))],
    [1, () => (a) => a.replace('AWS4-HMAC-SHA256', p.pick(['AWS4-HMAC-SHA512', 'AWS', 'aws4-hmac-sha256', '', 'Bearer']))],
    [1, () => (a) => a.replace(/Credential=[^,]+/, `Credential=${text(p, 80).replace(/[\r\n,]/g, '')}`)],
    [1, () => (a) => `${a}, ${a}`],
    [1, () => (a) => a.replace(/Signature=/, 'Signature=Signature=')],
    [1, () => (a) => a.replace(/SignedHeaders=[^,]+/, `SignedHeaders=${p.pick(['', ';', 'host;;x-amz-date', 'HOST', 'x-amz-nope;host', 'a'.repeat(5000)])}`)],
    [1, () => () => p.pick(['', ' ', 'AWS4-HMAC-SHA256', 'AWS4-HMAC-SHA256 Credential=', `AWS AKIA:${text(p, 20)}`, 'AWS4-HMAC-SHA256 ' + 'a=b,'.repeat(2000)])],
  ]);
}

function authCase(p: Prng, w: FuzzWorld): FuzzRequest {
  const writeKeep = p.chance(0.3);
  const base = writeKeep ? keyCase(p, w) : p.chance(0.5) ? rangeCase(p, w) : keyCase(p, w);
  if (writeKeep) {
    const obj = p.pick(w.keep.objects);
    return { ...base, family: 'auth:keep-write', method: p.pick(['PUT', 'DELETE']), path: `/${w.keep.bucket}/${encodeURIComponent(obj.key)}`, query: {}, body: p.bytes(10), auth: { kind: 'mangled-header', mangle: invalidating(p) } };
  }
  return { ...base, family: 'auth', readsKept: undefined, auth: { kind: 'mangled-header', mangle: anyMangle(p) } };
}

function anonymousCase(p: Prng, w: FuzzWorld): FuzzRequest {
  const obj = p.pick(w.keep.objects);
  const method = p.pick(['PUT', 'DELETE', 'GET', 'HEAD', 'POST']);
  const query: Record<string, string> = method === 'POST' ? p.pick<Record<string, string>>([{ delete: '' }, { uploads: '' }]) : p.chance(0.3) ? p.pick<Record<string, string>>([{ acl: '' }, { tagging: '' }]) : {};
  const path = method === 'POST' && query.delete !== undefined ? `/${w.keep.bucket}` : `/${w.keep.bucket}/${encodeURIComponent(obj.key)}`;
  const body = query.delete !== undefined ? Buffer.from(`<Delete><Object><Key>${obj.key}</Key></Object></Delete>`) : p.bytes(p.int(0, 20));
  const headers: Record<string, string> = p.chance(0.2) ? { 'x-amz-acl': 'public-read-write' } : {};
  return { family: 'anonymous:keep', method, path, query, headers, body, auth: { kind: 'anonymous' } };
}

function presignedCase(p: Prng, w: FuzzWorld): FuzzRequest {
  const base = p.chance(0.5) ? rangeCase(p, w) : keyCase(p, w);
  const mangle = (q: Record<string, string>): Record<string, string> => {
    const out = { ...q };
    for (let i = p.int(1, 3); i > 0; i--) {
      const name = p.pick(['X-Amz-Expires', 'X-Amz-Date', 'X-Amz-Credential', 'X-Amz-SignedHeaders', 'X-Amz-Algorithm', 'X-Amz-Signature', 'X-Amz-Security-Token', 'X-Amz-Content-Sha256', 'response-content-type']);
      out[name] = p.oneOf<string>([
        [2, () => integer(p)],
        [1, () => text(p, 40)],
        [1, () => p.pick(['', '604801', '0', '-1', '20261301T250000Z', '19700101T000000Z', '99991231T235959Z', 'UNSIGNED-PAYLOAD', 'AWS4-HMAC-SHA1'])],
        [1, () => (q[name] ?? '').slice(0, p.int(0, (q[name] ?? '').length))],
      ]);
      if (p.chance(0.15)) delete out[name];
    }
    return out;
  };
  const write = base.method !== 'GET' && base.method !== 'HEAD';
  return { ...base, family: 'presigned', readsKept: undefined, path: write ? objPath(p, w.work.bucket, key(p)) : base.path, auth: { kind: 'presigned', mangle: p.chance(0.85) ? mangle : (q) => q } };
}

function chunkedCase(p: Prng, w: FuzzWorld): FuzzRequest {
  const payload = p.bytes(p.pick([0, 1, 100, 8192, 70000]));
  const chunkSize = p.pick([1, 7, 8192, 65536]);
  const signed = p.chance(0.5);
  const trailers = p.chance(0.5) ? { [p.pick(['x-amz-checksum-crc32', 'x-amz-checksum-crc32c', 'x-amz-checksum-sha256', 'x-amz-checksum-crc64nvme', 'x-amz-nope'])]: p.chance(0.5) ? 'AAAAAA==' : text(p, 20).replace(/[\r\n]/g, '') } : undefined;
  const frame = p.oneOf<(b: Buffer) => Buffer>([
    [4, () => (b) => b],
    [1, () => (b) => b.subarray(0, p.int(0, b.length))],
    [1, () => (b) => Buffer.concat([b, p.bytes(p.int(1, 50))])],
    [1, () => (b) => Buffer.from(b.toString('latin1').replace(/^[0-9a-f]+/, p.pick(['ffffffffffffffff', 'zz', '-1', '', '10000000', ' 1'])), 'latin1')],
    [1, () => (b) => Buffer.from(b.toString('latin1').replace(/\r\n/, p.pick(['\n', '', '\r\r\n'])), 'latin1')],
    [1, () => (b) => { const c = Buffer.from(b); if (c.length) c[p.int(0, c.length - 1)] ^= 1 << p.int(0, 7); return c; }],
  ]);
  const headers: Record<string, string> = { 'content-encoding': p.pick(['aws-chunked', 'aws-chunked', 'aws-chunked,gzip', 'gzip']) };
  headers['x-amz-decoded-content-length'] = p.chance(0.8) ? String(payload.length) : integer(p);
  if (trailers) headers['x-amz-trailer'] = p.chance(0.9) ? Object.keys(trailers).join(',') : text(p, 20).replace(/[\r\n]/g, '');
  const upload = p.pick(w.work.uploads);
  const asPart = p.chance(0.3);
  const query: Record<string, string> = asPart ? { uploadId: upload.uploadId, partNumber: String(p.int(1, 4)) } : {};
  const path = objPath(p, w.work.bucket, asPart ? upload.key : `chunked/${p.string('abc', 4)}`);
  return { family: 'chunked', method: 'PUT', path, query, headers, body: Buffer.alloc(0), auth: { kind: 'chunked', signed, payload, chunkSize, trailers, frame } };
}

/** Case `index` of the run: the same (seed, index) always gives the same request. */
export function generate(p: Prng, w: FuzzWorld): FuzzRequest {
  return p.oneOf<FuzzRequest>([
    [5, () => xmlCase(p, w)],
    [3, () => rangeCase(p, w)],
    [2, () => keyCase(p, w)],
    [2, () => authCase(p, w)],
    [2, () => presignedCase(p, w)],
    [2, () => chunkedCase(p, w)],
    [1, () => copyCase(p, w)],
    [1, () => listingCase(p, w)],
    [1, () => anonymousCase(p, w)],
  ]);
}

function md5Base64(b: Buffer): string {
  return createHash('md5').update(b).digest('base64');
}
