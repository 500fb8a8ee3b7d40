/**
 * S3 error codes, their HTTP status and AWS's default message, and the XML error document.
 * Messages are AWS's own wording where it is known, so that clients and tests that match on
 * them keep working.
 */
export const S3_ERRORS = {
  AccessControlListNotSupported: [400, 'The bucket does not allow ACLs'],
  AccessDenied: [403, 'Access Denied'],
  AuthorizationHeaderMalformed: [400, 'The authorization header you provided is invalid.'],
  AuthorizationQueryParametersError: [400, 'The authorization query parameters you provided are invalid.'],
  BadDigest: [400, 'The Content-MD5 you specified did not match what we received.'],
  BadRequest: [400, 'Bad Request'],
  BucketAlreadyExists: [
    409,
    'The requested bucket name is not available. The bucket namespace is shared by all users of the system. Please select a different name and try again.',
  ],
  BucketAlreadyOwnedByYou: [
    409,
    'Your previous request to create the named bucket succeeded and you already own it.',
  ],
  BucketNotEmpty: [409, 'The bucket you tried to delete is not empty'],
  ConditionalRequestConflict: [409, 'A conflicting operation occurred. Please retry.'],
  EntityTooLarge: [400, 'Your proposed upload exceeds the maximum allowed object size.'],
  EntityTooSmall: [400, 'Your proposed upload is smaller than the minimum allowed object size.'],
  ExpiredToken: [400, 'The provided token has expired.'],
  IllegalLocationConstraintException: [
    400,
    'The unspecified location constraint is incompatible for the region specific endpoint this request was sent to.',
  ],
  IllegalVersioningConfigurationException: [400, 'The Versioning element must be specified'],
  IncompleteBody: [
    400,
    'You did not provide the number of bytes specified by the Content-Length HTTP header.',
  ],
  InternalError: [500, 'We encountered an internal error. Please try again.'],
  InvalidAccessKeyId: [403, 'The AWS Access Key Id you provided does not exist in our records.'],
  InvalidArgument: [400, 'Invalid Argument'],
  InvalidEncryptionAlgorithmError: [400, 'The encryption request you specified is not valid. The valid value is AES256.'],
  InvalidBucketName: [400, 'The specified bucket is not valid.'],
  InvalidBucketState: [409, 'The request is not valid with the current state of the bucket.'],
  InvalidDigest: [400, 'The Content-MD5 you specified is not valid.'],
  InvalidLocationConstraint: [400, 'The specified location constraint is not valid.'],
  InvalidObjectState: [403, "The operation is not valid for the object's storage class"],
  InvalidPart: [
    400,
    "One or more of the specified parts could not be found.  The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
  ],
  InvalidPartOrder: [
    400,
    'The list of parts was not in ascending order. Parts must be ordered by part number.',
  ],
  InvalidPolicyDocument: [400, 'The content of the form does not meet the conditions specified in the policy document.'],
  InvalidPartNumber: [416, 'The requested partnumber is not satisfiable'],
  InvalidRange: [416, 'The requested range is not satisfiable'],
  InvalidRequest: [400, 'Invalid Request'],
  InvalidStorageClass: [400, 'The storage class you specified is not valid'],
  InvalidTag: [400, 'The TagSet you have provided is invalid.'],
  InvalidToken: [400, 'The provided token is malformed or otherwise invalid.'],
  InvalidURI: [400, "Couldn't parse the specified URI."],
  KeyTooLongError: [400, 'Your key is too long'],
  MalformedXML: [
    400,
    'The XML you provided was not well-formed or did not validate against our published schema',
  ],
  MalformedPOSTRequest: [400, 'The body of your POST request is not well-formed multipart/form-data.'],
  MaxPostPreDataLengthExceeded: [400, 'Your POST request fields preceding the upload file were too large.'],
  MetadataTooLarge: [400, 'Your metadata headers exceed the maximum allowed metadata size.'],
  MethodNotAllowed: [405, 'The specified method is not allowed against this resource.'],
  MissingContentLength: [411, 'You must provide the Content-Length HTTP header.'],
  MissingRequestBodyError: [400, 'Request Body is empty'],
  MissingSecurityHeader: [400, 'Your request was missing a required header'],
  NoSuchBucket: [404, 'The specified bucket does not exist'],
  NoSuchBucketPolicy: [404, 'The bucket policy does not exist'],
  NoSuchCORSConfiguration: [404, 'The CORS configuration does not exist'],
  NoSuchKey: [404, 'The specified key does not exist.'],
  NoSuchLifecycleConfiguration: [404, 'The lifecycle configuration does not exist'],
  NoSuchTagSet: [404, 'The TagSet does not exist'],
  NoSuchConfiguration: [404, 'The specified configuration does not exist.'],
  NoSuchUpload: [
    404,
    'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
  ],
  NoSuchVersion: [404, 'The specified version does not exist.'],
  NotImplemented: [501, 'A header you provided implies functionality that is not implemented'],
  NotModified: [304, 'Not Modified'],
  ObjectLockConfigurationNotFoundError: [404, 'Object Lock configuration does not exist for this bucket'],
  OperationAborted: [
    409,
    'A conflicting conditional operation is currently in progress against this resource. Please try again.',
  ],
  PreconditionFailed: [412, 'At least one of the pre-conditions you specified did not hold'],
  QuotaExceeded: [403, 'The bucket quota would be exceeded by this request.'],
  RequestTimeTooSkewed: [403, 'The difference between the request time and the current time is too large.'],
  RequestTimeout: [
    400,
    'Your socket connection to the server was not read from or written to within the timeout period. Idle connections will be closed.',
  ],
  ServerSideEncryptionConfigurationNotFoundError: [
    404,
    'The server side encryption configuration was not found',
  ],
  ServiceUnavailable: [503, 'Please reduce your request rate.'],
  SignatureDoesNotMatch: [
    403,
    'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
  ],
  SlowDown: [503, 'Please reduce your request rate.'],
  TooManyBuckets: [400, 'You have attempted to create more buckets than allowed'],
  UnexpectedContent: [400, 'This request does not support content'],
  XAmzContentSHA256Mismatch: [
    400,
    "The provided 'x-amz-content-sha256' header does not match what was computed.",
  ],
} as const satisfies Record<string, readonly [number, string]>;

export type S3ErrorCode = keyof typeof S3_ERRORS;

export function isS3ErrorCode(code: string): code is S3ErrorCode {
  return Object.prototype.hasOwnProperty.call(S3_ERRORS, code);
}

export interface S3ErrorOptions {
  /** Extra elements of the XML error document, rendered in this order after `<Message>` (e.g. `Key`, `StringToSign`). */
  extra?: Record<string, string>;
  /** Extra response headers (e.g. `Allow` for MethodNotAllowed). */
  headers?: Record<string, string>;
  /** Overrides the catalog status; needed only for codes outside the catalog. */
  httpStatus?: number;
  cause?: unknown;
}

/** An error that the gateway renders as an S3 error response. */
export class S3Error extends Error {
  readonly code: string;
  readonly httpStatus: number;
  readonly extra: Record<string, string>;
  readonly headers: Record<string, string>;

  constructor(code: S3ErrorCode, message?: string, options: S3ErrorOptions = {}) {
    super(message ?? S3_ERRORS[code][1], options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'S3Error';
    this.code = code;
    this.httpStatus = options.httpStatus ?? S3_ERRORS[code][0];
    this.extra = options.extra ?? {};
    this.headers = options.headers ?? {};
  }

  /**
   * An error from a code known only at run time (e.g. a domain error's code). A code outside the
   * catalog keeps its name and gets status 500 unless `httpStatus` says otherwise: an uncatalogued
   * code is a server bug, never the client's fault.
   */
  static fromCode(code: string, message?: string, options: S3ErrorOptions = {}): S3Error {
    if (isS3ErrorCode(code)) return new S3Error(code, message, options);
    const error = new S3Error('InternalError', message ?? code, { httpStatus: 500, ...options });
    (error as { code: string }).code = code;
    return error;
  }
}

export interface ErrorXmlInput {
  code: string;
  message: string;
  /** The bucket or object the request addressed, e.g. `/bucket/key`. */
  resource?: string;
  requestId?: string;
  hostId?: string;
  extra?: Record<string, string>;
}

/**
 * S3's error document: `Code`, `Message`, the extra elements, then `Resource`, `RequestId`,
 * `HostId`. Absent optional fields are left out. Text is escaped for XML 1.0.
 */
export function renderErrorXml(input: ErrorXmlInput): string {
  const parts = [
    `<Code>${escapeXmlText(input.code)}</Code>`,
    `<Message>${escapeXmlText(input.message)}</Message>`,
  ];
  for (const [name, value] of Object.entries(input.extra ?? {})) {
    parts.push(`<${name}>${escapeXmlText(value)}</${name}>`);
  }
  if (input.resource !== undefined) parts.push(`<Resource>${escapeXmlText(input.resource)}</Resource>`);
  if (input.requestId !== undefined) parts.push(`<RequestId>${escapeXmlText(input.requestId)}</RequestId>`);
  if (input.hostId !== undefined) parts.push(`<HostId>${escapeXmlText(input.hostId)}</HostId>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error>${parts.join('')}</Error>`;
}

/**
 * Escapes text content and attribute values. Control characters that XML 1.0 cannot carry raw
 * (and CR, which parsers would turn into LF) become numeric references, as S3 does for keys.
 */
export function escapeXmlText(text: string): string {
  return text.replace(/[&<>"'\u0000-\u0008\u000b-\u001f\ufffe\uffff]/g, (ch) => {
    switch (ch) {
      case '&':
        return '&amp;';
      case '<':
        return '&lt;';
      case '>':
        return '&gt;';
      case '"':
        return '&quot;';
      case "'":
        return '&apos;';
      default:
        return `&#x${ch.charCodeAt(0).toString(16).toUpperCase()};`;
    }
  });
}
