import type { IncomingMessage } from 'http';
import { Transform } from 'stream';
import { Inject, Injectable } from '@nestjs/common';
import {
  checkPostPolicy,
  escapeXmlText,
  formBoundary,
  FormFile,
  MAX_PUT_OBJECT_BYTES,
  parsePostPolicy,
  parseTagging,
  postSignatureOf,
  postSizeError,
  readFormUntilFile,
  refuseUnsupportedHeaders,
  S3Error,
  userMetadataFromHeaders,
  validateStorageClass,
  verifyPostSignature,
} from '@ostore/s3/protocol';
import type { CannedAcl, ChecksumAlgorithm, ObjectMeta, ObjectsService } from '@ostore/s3/core';
import { Clock } from '@ostore/shared/clock';
import type { GatewayConfig } from '../../../config/gateway.config';
import { AccessControl } from '../../access';
import { Authenticator } from '../../authenticator';
import { CANNED_ACLS, CHECKSUM_ALGORITHMS, objectOwnerOf, writtenVersionId } from '../../object-http';
import { sendEmpty, sendXml } from '../../responses';
import { checkFormAcl } from '../../policy-gate';
import { OBJECTS_SERVICE } from '../../services';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';
import { GATEWAY_CONFIG } from '../../tokens';
import { ObjectEncryption } from '../../sse/object-encryption';

interface PostForm {
  key: string;
  fields: Map<string, string>;
  file: FormFile;
  range?: { min: number; max: number };
}

const argument = (name: string, message: string, value?: string) =>
  new S3Error('InvalidArgument', message, { extra: { ArgumentName: name, ...(value !== undefined ? { ArgumentValue: value } : {}) } });

/**
 * POST object (browser uploads): the form's fields up to the file are read (bounded), its policy
 * signature (SigV4 or V2) authenticates the request and its conditions are checked before a byte
 * of the file is stored; the file streams into the object, its size checked against
 * content-length-range as it flows and again before the version becomes visible.
 */
@Injectable()
export class PostObjectHandler implements S3Handler {
  readonly operation = 'PostObject';
  readonly access = 'bucket-write' as const;
  private readonly forms = new WeakMap<S3Request, PostForm>();

  constructor(
    @Inject(OBJECTS_SERVICE) private readonly objects: ObjectsService,
    private readonly auth: Authenticator,
    private readonly accessControl: AccessControl,
    private readonly clock: Clock,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly sse: ObjectEncryption,
  ) {}

  async authenticate(req: S3Request): Promise<void> {
    await answerAfterDraining(req.raw, async () => {
      await this.readForm(req);
      // authorized here too, so that a refusal is answered after draining the form; the server's
      // check after this hook repeats it on the bucket already resolved
      await this.accessControl.authorize(req, this.access);
    });
  }

  async handle(req: S3Request): Promise<void> {
    await answerAfterDraining(req.raw, () => this.store(req));
  }

  private async readForm(req: S3Request): Promise<void> {
    const boundary = formBoundary(req.header('content-type'));
    if (!boundary) {
      throw new S3Error('PreconditionFailed', undefined, { extra: { Condition: 'Bucket POST must be of the enclosure-type multipart/form-data' } });
    }
    const { fields, file } = await readFormUntilFile(req.body, boundary);
    if (!file) throw argument('file', 'POST requires exactly one file upload per request.', '0');
    const rawKey = fields.get('key');
    if (rawKey === undefined) throw argument('key', "Bucket POST must contain a field named 'key'.  If it is specified, please check the order of the fields.");
    const key = rawKey.replace(/\$\{filename\}/g, file.filename);
    fields.set('key', key);
    fields.set('bucket', req.bucket!);
    const form: PostForm = { key, fields, file };
    const signature = postSignatureOf(fields);
    if (signature) {
      if (signature.version === 2 && !this.config.s3.sigV2) {
        throw new S3Error('InvalidRequest', 'The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.');
      }
      const found = await this.auth.activeKey(signature.accessKeyId);
      const policy = fields.get('policy')!;
      verifyPostSignature(signature, policy, found.key.secretAccessKey, this.config.s3.region);
      form.range = checkPostPolicy(parsePostPolicy(policy), fields, this.clock.now());
      req.principal = { kind: 'user', owner: { id: found.user.id, displayName: found.user.displayName }, accessKeyId: found.key.accessKeyId };
    }
    this.forms.set(req, form);
  }

  private async store(req: S3Request): Promise<void> {
    const form = this.forms.get(req)!;
    const { fields, range } = form;
    const checksums = formChecksums(fields);
    const meta = formMeta(fields);
    if (meta.acl !== undefined) checkFormAcl(req.target, meta.acl, req.owner?.id);
    // the form's SSE fields (as PutObject's headers), else the bucket's default encryption
    const encryption = this.sse.forWrite(req, Object.fromEntries(fields));
    let seen = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _enc, done) {
        seen += chunk.length;
        // refused while it flows: an oversized file is not stored to be thrown away
        if (range && seen > range.max) done(postSizeError(range, seen));
        else if (seen > MAX_PUT_OBJECT_BYTES) done(new S3Error('EntityTooLarge', undefined, { extra: { ProposedSize: String(seen), MaxSizeAllowed: String(MAX_PUT_OBJECT_BYTES) } }));
        else done(null, chunk);
      },
    });
    form.file.stream.on('error', (e) => counted.destroy(e));
    // a broken file part fails whoever reads `counted`; with no reader yet it must not be an
    // unhandled 'error' event (it would end the process)
    counted.on('error', () => undefined);
    const result = await this.objects.put({
      bucket: req.target,
      key: form.key,
      owner: objectOwnerOf(req),
      body: form.file.stream.pipe(counted),
      meta: encryption ? { ...meta, sse: encryption.sse } : meta,
      ...(encryption ? { encryption: { dataKey: encryption.dataKey, etag: encryption.etag } } : {}),
      checksumAlgorithms: checksums.algorithms,
      verify: (computed) => {
        const sizeError = postSizeError(range, computed.size);
        if (sizeError) throw sizeError;
        for (const [alg, value] of Object.entries(checksums.expected)) {
          if (computed.checksums[alg as ChecksumAlgorithm] !== value) throw new S3Error('BadDigest', `The ${alg} you specified did not match the calculated checksum.`);
        }
      },
    });
    const headers: Record<string, string | undefined> = {
      ETag: result.etag,
      'x-amz-version-id': writtenVersionId(req.target.versioning, result.versionId),
      ...encryption?.headers,
    };
    for (const alg of checksums.algorithms) headers[`x-amz-checksum-${alg.toLowerCase()}`] = result.checksums[alg];
    this.respond(req, form, headers);
  }

  /** success_action_redirect (303), else success_action_status 200 / 201 (PostResponse) / 204. */
  private respond(req: S3Request, form: PostForm, stored: Record<string, string | undefined>): void {
    const bucket = req.bucket!;
    const etag = stored['ETag']!;
    const host = req.header('host') ?? 'localhost';
    const location = `http://${host}/${bucket}/${encodeURIComponent(form.key).replace(/%2F/g, '/')}`;
    const headers = { ...stored, Location: location };
    const redirect = form.fields.get('success_action_redirect') ?? form.fields.get('redirect');
    if (redirect && /^https?:\/\//i.test(redirect)) {
      const url = new URL(redirect);
      url.searchParams.set('bucket', bucket);
      url.searchParams.set('key', form.key);
      url.searchParams.set('etag', etag);
      sendEmpty(req, 303, { ...headers, Location: url.toString() });
      return;
    }
    const status = form.fields.get('success_action_status');
    if (status === '201') {
      const xml =
        `<?xml version="1.0" encoding="UTF-8"?>\n<PostResponse><Location>${escapeXmlText(location)}</Location>` +
        `<Bucket>${escapeXmlText(bucket)}</Bucket><Key>${escapeXmlText(form.key)}</Key><ETag>${escapeXmlText(etag)}</ETag></PostResponse>`;
      sendXml(req, 201, xml, headers);
      return;
    }
    sendEmpty(req, status === '200' ? 200 : 204, headers);
  }
}

/** Most bytes of a refused form read and dropped so that its answer reaches a browser still sending; beyond, the connection is cut. */
const DRAIN_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Runs `work`; when it fails before the body was read to its end (a policy refusal, a file too
 * large), the rest of the body is read and dropped first (up to DRAIN_MAX_BYTES): a client
 * answered while still writing would see a broken pipe instead of S3's error.
 */
async function answerAfterDraining(raw: IncomingMessage, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (e) {
    if (!raw.readableEnded && !raw.destroyed) await drain(raw);
    throw e;
  }
}

function drain(raw: IncomingMessage): Promise<void> {
  // the form reader's async iterator listens for 'readable', which would keep the stream paused;
  // a header-signed request's body is piped into a hash verifier nobody reads any more, whose
  // backpressure would pause it for good
  raw.removeAllListeners('readable');
  raw.unpipe();
  return new Promise((resolve) => {
    let seen = 0;
    const done = () => {
      raw.off('data', onData).off('end', done).off('close', done).off('error', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_MAX_BYTES) done();
    };
    raw.on('data', onData).once('end', done).once('close', done).once('error', done);
    raw.resume();
  });
}

/** The object's metadata from the form's fields (the headers a PUT would carry). */
function formMeta(fields: Map<string, string>): ObjectMeta {
  const headers = Object.fromEntries(fields);
  // SSE-KMS and Object Lock fields refused as on PutObject; SSE-S3 and SSE-C fields encrypt (see store)
  refuseUnsupportedHeaders('PutObject', headers);
  const acl = fields.get('acl');
  if (acl !== undefined && !CANNED_ACLS.includes(acl as CannedAcl)) throw argument('acl', `Invalid canned ACL: ${acl}`, acl);
  const storageClass = fields.get('x-amz-storage-class');
  if (storageClass !== undefined) validateStorageClass(storageClass);
  const tagging = fields.get('tagging');
  return {
    contentType: fields.get('content-type'),
    contentEncoding: fields.get('content-encoding'),
    contentLanguage: fields.get('content-language'),
    contentDisposition: fields.get('content-disposition'),
    cacheControl: fields.get('cache-control'),
    expires: fields.get('expires'),
    userMeta: userMetadataFromHeaders(headers),
    storageClass: storageClass ?? 'STANDARD',
    acl: acl as CannedAcl | undefined,
    tags: tagging === undefined ? undefined : parseTagging(tagging, 'object'),
  };
}

/** x-amz-checksum-<alg> fields: the values the stored file must match. */
function formChecksums(fields: Map<string, string>): { algorithms: ChecksumAlgorithm[]; expected: Partial<Record<ChecksumAlgorithm, string>> } {
  const expected: Partial<Record<ChecksumAlgorithm, string>> = {};
  for (const alg of CHECKSUM_ALGORITHMS) {
    const v = fields.get(`x-amz-checksum-${alg.toLowerCase()}`);
    if (v !== undefined) expected[alg] = v;
  }
  const algorithms = new Set(Object.keys(expected) as ChecksumAlgorithm[]);
  const algorithm = fields.get('x-amz-checksum-algorithm')?.toUpperCase();
  if (algorithm !== undefined) {
    if (!CHECKSUM_ALGORITHMS.includes(algorithm as ChecksumAlgorithm)) throw new S3Error('InvalidRequest', `Value for x-amz-checksum-algorithm is invalid: ${algorithm}`);
    algorithms.add(algorithm as ChecksumAlgorithm);
  }
  if (Object.keys(expected).length > 1) throw new S3Error('InvalidRequest', 'Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.');
  return { algorithms: [...algorithms], expected };
}
