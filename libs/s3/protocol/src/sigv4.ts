import { S3Error, S3ErrorCode } from './errors';
import { headerValue } from './headers';
import {
  buildCanonicalRequest,
  cachedSigningKey,
  formatAmzDate,
  hmacSha256,
  parseAmzDate,
  sameSignature,
  sha256Hex,
} from './sigv4-signing';
import {
  DEFAULT_MAX_SKEW_MS,
  MAX_PRESIGNED_EXPIRES_SECONDS,
  ParsedSigV4,
  SIGV4_ALGORITHM,
  SigV4Request,
  SigV4Verified,
  STREAMING_SIGNED_PAYLOAD,
  STREAMING_SIGNED_PAYLOAD_TRAILER,
  STREAMING_UNSIGNED_PAYLOAD_TRAILER,
  UNSIGNED_PAYLOAD,
  VerifySigV4Options,
} from './sigv4-types';

export * from './sigv4-signing';
export * from './sigv4-types';

/**
 * AWS Signature Version 4 for S3: parsing of the `Authorization` header and of presigned query
 * parameters, and verification against the secret key.
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-authenticating-requests.html
 */

const UNSUPPORTED_MECHANISM =
  'The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.';
const QUERY_PARAMS_REQUIRED =
  'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.';
const QUERY_AUTH_PARAMS = [
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Signature',
  'X-Amz-Date',
  'X-Amz-SignedHeaders',
  'X-Amz-Expires',
] as const;
const SIGNED_HEADER_NAME = /^[a-z0-9!#$%&'*+.^_`|~-]+$/;
const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/**
 * Finds the SigV4 authentication of a request. Returns `undefined` for an anonymous request.
 * Throws S3Error for malformed authentication and for mechanisms we do not support
 * (Signature Version 2, SigV4a).
 */
export function parseSigV4(req: SigV4Request): ParsedSigV4 | undefined {
  const authorization = headerValue(req.headers, 'authorization');
  const queryAuth = req.query.some(([name]) => (QUERY_AUTH_PARAMS as readonly string[]).includes(name));
  if (authorization !== undefined && queryAuth) {
    throw new S3Error(
      'InvalidArgument',
      'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified',
      { extra: { ArgumentName: 'Authorization', ArgumentValue: authorization } },
    );
  }
  if (authorization !== undefined) return parseHeaderAuth(req, authorization);
  if (queryAuth) return parseQueryAuth(req);
  const names = new Set(req.query.map(([name]) => name));
  if (names.has('AWSAccessKeyId') || (names.has('Signature') && names.has('Expires'))) {
    throw new S3Error('InvalidRequest', UNSUPPORTED_MECHANISM);
  }
  return undefined;
}

function parseHeaderAuth(req: SigV4Request, authorization: string): ParsedSigV4 {
  const malformed = (detail: string) =>
    new S3Error('AuthorizationHeaderMalformed', `The authorization header is malformed; ${detail}`);
  const trimmed = authorization.trim();
  const space = trimmed.search(/\s/);
  const algorithm = space < 0 ? trimmed : trimmed.slice(0, space);
  if (algorithm === 'AWS' || algorithm.startsWith('AWS4-ECDSA')) {
    // "AWS AKID:signature" is Signature Version 2; AWS4-ECDSA-P256-SHA256 is SigV4a.
    throw new S3Error('InvalidRequest', UNSUPPORTED_MECHANISM);
  }
  if (algorithm !== SIGV4_ALGORITHM) {
    throw new S3Error('InvalidArgument', 'Unsupported Authorization Type', {
      extra: { ArgumentName: 'Authorization', ArgumentValue: authorization },
    });
  }
  const components = new Map<string, string>();
  for (const part of trimmed.slice(space < 0 ? trimmed.length : space).split(',')) {
    const item = part.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    const name = eq < 0 ? item : item.slice(0, eq).trim();
    if (eq < 0 || components.has(name))
      throw malformed(`the authorization component "${item}" is malformed.`);
    components.set(name, item.slice(eq + 1).trim());
  }
  const credential = components.get('Credential');
  const signedHeaders = components.get('SignedHeaders');
  const signature = components.get('Signature');
  if (!credential || !signedHeaders || !signature) {
    throw malformed(
      'the authorization header requires three components: Credential, SignedHeaders, and Signature.',
    );
  }
  const scope = parseCredential(credential, malformed);
  const headers = parseSignedHeaders(signedHeaders, () =>
    malformed('the SignedHeaders component is malformed.'),
  );

  const time = requestTimeFromHeaders(req);
  if (time.amzDate.slice(0, 8) !== scope.date) {
    throw malformed('Invalid credential date. Date is not the same as X-Amz-Date.');
  }
  const payloadHash = headerValue(req.headers, 'x-amz-content-sha256');
  if (payloadHash === undefined) {
    throw new S3Error('InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
  }
  checkPayloadHash(payloadHash, true);
  return {
    kind: 'header',
    ...scope,
    signedHeaders: headers,
    signature,
    ...time,
    payloadHash,
    securityToken: headerValue(req.headers, 'x-amz-security-token'),
  };
}

function parseQueryAuth(req: SigV4Request): ParsedSigV4 {
  const error = (message: string) => new S3Error('AuthorizationQueryParametersError', message);
  const params = new Map<string, string>();
  for (const [name, value] of req.query) {
    if (!(QUERY_AUTH_PARAMS as readonly string[]).includes(name)) continue;
    // A repeated parameter could make us verify one value and act on another.
    if (params.has(name)) throw error(`Duplicate ${name} parameter.`);
    params.set(name, value);
  }
  if (QUERY_AUTH_PARAMS.some((name) => !params.get(name))) throw error(QUERY_PARAMS_REQUIRED);
  const get = (name: (typeof QUERY_AUTH_PARAMS)[number]) => params.get(name) as string;

  if (get('X-Amz-Algorithm') !== SIGV4_ALGORITHM)
    throw error('X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"');
  const scope = parseCredential(get('X-Amz-Credential'), (detail) =>
    error(`Error parsing the X-Amz-Credential parameter; ${detail}`),
  );
  const signedHeaders = parseSignedHeaders(get('X-Amz-SignedHeaders'), () =>
    error('Error parsing the X-Amz-SignedHeaders parameter.'),
  );
  const amzDate = get('X-Amz-Date');
  const requestTime = parseAmzDate(amzDate);
  if (!requestTime) throw error(`X-Amz-Date must be in the ISO8601 Long Format "yyyyMMdd'T'HHmmss'Z'"`);
  if (amzDate.slice(0, 8) !== scope.date)
    throw error('Invalid credential date. Date is not the same as X-Amz-Date.');

  const expires = get('X-Amz-Expires');
  if (/^-\d+$/.test(expires)) throw error('X-Amz-Expires must be non-negative');
  if (!/^\d+$/.test(expires)) throw error('X-Amz-Expires should be a number');
  const expiresSeconds = Number(expires);
  if (expiresSeconds > MAX_PRESIGNED_EXPIRES_SECONDS) {
    throw error(
      'X-Amz-Expires must be less than a week (in seconds) that is; the maximum expires is 604800 seconds',
    );
  }
  const payloadHash =
    queryValue(req, 'X-Amz-Content-Sha256') ??
    headerValue(req.headers, 'x-amz-content-sha256') ??
    UNSIGNED_PAYLOAD;
  checkPayloadHash(payloadHash, false);
  return {
    kind: 'query',
    ...scope,
    signedHeaders,
    signature: get('X-Amz-Signature'),
    amzDate,
    requestTime,
    expiresSeconds,
    payloadHash,
    securityToken:
      queryValue(req, 'X-Amz-Security-Token') ?? headerValue(req.headers, 'x-amz-security-token'),
  };
}

/** `AKID/yyyymmdd/region/s3/aws4_request`, split from the right so that the key id is taken whole. */
function parseCredential(credential: string, fail: (detail: string) => S3Error) {
  const parts = credential.split('/');
  const mal = () =>
    fail('the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".');
  if (parts.length < 5) throw mal();
  const [date, region, service, terminal] = parts.slice(-4);
  const accessKeyId = parts.slice(0, -4).join('/');
  if (!accessKeyId || !/^\d{8}$/.test(date) || !region) throw mal();
  if (service !== 's3') throw fail(`incorrect service "${service}". This endpoint belongs to "s3".`);
  if (terminal !== 'aws4_request')
    throw fail(`incorrect terminal "${terminal}". This endpoint uses "aws4_request".`);
  return { accessKeyId, date, region, service };
}

function parseSignedHeaders(value: string, fail: () => S3Error): string[] {
  const names = value.split(';');
  if (names.some((name) => !SIGNED_HEADER_NAME.test(name))) throw fail();
  return names;
}

/** x-amz-date wins over Date (RFC 7231); the string to sign always carries the ISO basic form. */
function requestTimeFromHeaders(req: SigV4Request): { amzDate: string; requestTime: Date } {
  const invalid = () =>
    new S3Error('AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
  const amzDate = headerValue(req.headers, 'x-amz-date');
  if (amzDate !== undefined) {
    const requestTime = parseAmzDate(amzDate);
    if (!requestTime) throw invalid();
    return { amzDate, requestTime };
  }
  const date = headerValue(req.headers, 'date');
  const ms = date === undefined ? NaN : Date.parse(date);
  if (Number.isNaN(ms)) throw invalid();
  const requestTime = new Date(ms);
  return { amzDate: formatAmzDate(requestTime), requestTime };
}

function checkPayloadHash(value: string, streamingAllowed: boolean): void {
  if (SHA256_HEX.test(value) || value === UNSIGNED_PAYLOAD) return;
  if (streamingAllowed) {
    if (
      value === STREAMING_SIGNED_PAYLOAD ||
      value === STREAMING_SIGNED_PAYLOAD_TRAILER ||
      value === STREAMING_UNSIGNED_PAYLOAD_TRAILER
    ) {
      return;
    }
    if (value.startsWith('STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD')) {
      throw new S3Error('NotImplemented', `x-amz-content-sha256 ${value} (SigV4a) is not supported`);
    }
  }
  throw new S3Error(
    'InvalidArgument',
    streamingAllowed
      ? 'x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER, or a valid sha256 value.'
      : 'x-amz-content-sha256 must be UNSIGNED-PAYLOAD or a valid sha256 value.',
    { extra: { ArgumentName: 'x-amz-content-sha256', ArgumentValue: value } },
  );
}

/**
 * Checks the time window and the signature of a parsed request. Checks time first: SDKs correct
 * their clock from a RequestTimeTooSkewed answer (and its Date header), so a skewed client must
 * get that error even though its signature also fails.
 */
export function verifySigV4(
  parsed: ParsedSigV4,
  req: SigV4Request,
  secretAccessKey: string,
  now: Date,
  options: VerifySigV4Options = {},
): SigV4Verified {
  const maxSkewMs = options.maxSkewMs ?? DEFAULT_MAX_SKEW_MS;
  const badAuthCode: S3ErrorCode =
    parsed.kind === 'header' ? 'AuthorizationHeaderMalformed' : 'AuthorizationQueryParametersError';
  if (options.region !== undefined && parsed.region !== options.region) {
    const prefix =
      parsed.kind === 'header'
        ? 'The authorization header is malformed; '
        : 'Error parsing the X-Amz-Credential parameter; ';
    throw new S3Error(
      badAuthCode,
      `${prefix}the region '${parsed.region}' is wrong; expecting '${options.region}'`,
      {
        extra: { Region: options.region },
      },
    );
  }
  const skew = parsed.requestTime.getTime() - now.getTime();
  if (parsed.kind === 'header') {
    if (Math.abs(skew) > maxSkewMs) {
      throw new S3Error('RequestTimeTooSkewed', undefined, {
        extra: {
          RequestTime:
            headerValue(req.headers, 'x-amz-date') ?? headerValue(req.headers, 'date') ?? parsed.amzDate,
          ServerTime: now.toISOString(),
          MaxAllowedSkewMilliseconds: String(maxSkewMs),
        },
      });
    }
  } else {
    // X-Amz-Expires=0 passes S3's checks (only a negative or over-a-week value is a parameter error)
    // and is expired from the moment it was signed: 403 AccessDenied, as any expired URL
    const expiresAt = parsed.requestTime.getTime() + (parsed.expiresSeconds ?? 0) * 1000;
    if (now.getTime() > expiresAt || parsed.expiresSeconds === 0) {
      throw new S3Error('AccessDenied', 'Request has expired', {
        extra: {
          'X-Amz-Expires': String(parsed.expiresSeconds),
          Expires: new Date(expiresAt).toISOString(),
          ServerTime: now.toISOString(),
        },
      });
    }
    if (skew > maxSkewMs) throw new S3Error('AccessDenied', 'Request is not valid yet');
  }

  const signed = new Set(parsed.signedHeaders);
  const notSigned = Object.keys(req.headers).filter(
    (name) => req.headers[name] !== undefined && name.startsWith('x-amz-') && !signed.has(name),
  );
  if (!signed.has('host')) notSigned.unshift('host');
  if (
    parsed.kind === 'header' &&
    headerValue(req.headers, 'x-amz-date') === undefined &&
    !signed.has('date')
  ) {
    notSigned.push('date');
  }
  if (notSigned.length > 0) {
    throw new S3Error('AccessDenied', 'There were headers present in the request which were not signed', {
      extra: { HeadersNotSigned: notSigned.join(', ') },
    });
  }

  const scope = `${parsed.date}/${parsed.region}/${parsed.service}/aws4_request`;
  const canonicalRequest = buildCanonicalRequest(parsed, req);
  const stringToSign = [SIGV4_ALGORITHM, parsed.amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = cachedSigningKey(secretAccessKey, parsed.date, parsed.region, parsed.service);
  const expected = hmacSha256(signingKey, stringToSign).toString('hex');
  if (!sameSignature(expected, parsed.signature)) {
    throw new S3Error('SignatureDoesNotMatch', undefined, {
      extra: {
        AWSAccessKeyId: parsed.accessKeyId,
        StringToSign: stringToSign,
        SignatureProvided: parsed.signature,
        StringToSignBytes: hexBytes(stringToSign),
        CanonicalRequest: canonicalRequest,
        CanonicalRequestBytes: hexBytes(canonicalRequest),
      },
    });
  }
  return { signingKey, seedSignature: expected, scope, amzDate: parsed.amzDate };
}

function queryValue(req: SigV4Request, name: string): string | undefined {
  return req.query.find(([n]) => n === name)?.[1];
}

function hexBytes(text: string): string {
  return Array.from(Buffer.from(text, 'utf8'), (b) => b.toString(16).padStart(2, '0')).join(' ');
}
