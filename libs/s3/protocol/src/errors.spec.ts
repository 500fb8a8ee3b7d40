import { escapeXmlText, isS3ErrorCode, renderErrorXml, S3_ERRORS, S3Error } from './errors';

describe(S3Error.name, () => {
  it.each<[keyof typeof S3_ERRORS, number]>([
    ['AccessDenied', 403],
    ['BadDigest', 400],
    ['BucketAlreadyExists', 409],
    ['BucketAlreadyOwnedByYou', 409],
    ['BucketNotEmpty', 409],
    ['EntityTooSmall', 400],
    ['EntityTooLarge', 400],
    ['IncompleteBody', 400],
    ['InvalidAccessKeyId', 403],
    ['InvalidArgument', 400],
    ['InvalidBucketName', 400],
    ['InvalidDigest', 400],
    ['InvalidPart', 400],
    ['InvalidPartOrder', 400],
    ['InvalidRange', 416],
    ['InvalidPartNumber', 416],
    ['InvalidRequest', 400],
    ['KeyTooLongError', 400],
    ['MalformedXML', 400],
    ['MethodNotAllowed', 405],
    ['MissingContentLength', 411],
    ['NoSuchBucket', 404],
    ['NoSuchKey', 404],
    ['NoSuchUpload', 404],
    ['NoSuchVersion', 404],
    ['NoSuchTagSet', 404],
    ['NoSuchLifecycleConfiguration', 404],
    ['NotImplemented', 501],
    ['PreconditionFailed', 412],
    ['RequestTimeTooSkewed', 403],
    ['SignatureDoesNotMatch', 403],
    ['AuthorizationHeaderMalformed', 400],
    ['AuthorizationQueryParametersError', 400],
    ['XAmzContentSHA256Mismatch', 400],
    ['InvalidTag', 400],
    ['MetadataTooLarge', 400],
    ['InternalError', 500],
    ['ServiceUnavailable', 503],
    ['SlowDown', 503],
    ['BadRequest', 400],
    ['InvalidStorageClass', 400],
    ['InvalidObjectState', 403],
    ['NotModified', 304],
    ['UnexpectedContent', 400],
  ])('maps %s to HTTP %d with a default message', (code, status) => {
    const sut = new S3Error(code);
    expect(sut).toBeInstanceOf(Error);
    expect(sut.code).toBe(code);
    expect(sut.httpStatus).toBe(status);
    expect(sut.message).toBe(S3_ERRORS[code][1]);
    expect(sut.message.length).toBeGreaterThan(5);
  });

  it('keeps a custom message, extra fields, headers and cause', () => {
    const cause = new Error('root');
    const sut = new S3Error('NoSuchKey', 'gone', {
      extra: { Key: 'k' },
      headers: { 'x-amz-delete-marker': 'true' },
      cause,
    });
    expect(sut).toMatchObject({
      message: 'gone',
      extra: { Key: 'k' },
      headers: { 'x-amz-delete-marker': 'true' },
      cause,
      name: 'S3Error',
    });
  });

  it('builds from a run-time code, keeping unknown codes as server errors', () => {
    expect(S3Error.fromCode('NoSuchBucket')).toMatchObject({ code: 'NoSuchBucket', httpStatus: 404 });
    expect(S3Error.fromCode('WeirdNewCode', 'hm')).toMatchObject({
      code: 'WeirdNewCode',
      httpStatus: 500,
      message: 'hm',
    });
    expect(S3Error.fromCode('WeirdNewCode', 'hm', { httpStatus: 409 }).httpStatus).toBe(409);
    expect(isS3ErrorCode('NoSuchKey')).toBe(true);
    expect(isS3ErrorCode('toString')).toBe(false);
  });
});

describe(renderErrorXml.name, () => {
  it('renders S3 error documents in S3 element order', () => {
    const sut = renderErrorXml({
      code: 'NoSuchKey',
      message: 'The specified key does not exist.',
      extra: { Key: 'a<b>&c' },
      resource: '/bucket/a<b>&c',
      requestId: 'req-1',
      hostId: 'host-1',
    });
    expect(sut).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message>' +
        '<Key>a&lt;b&gt;&amp;c</Key><Resource>/bucket/a&lt;b&gt;&amp;c</Resource><RequestId>req-1</RequestId><HostId>host-1</HostId></Error>',
    );
  });

  it('leaves out absent optional elements', () => {
    expect(renderErrorXml({ code: 'X', message: 'y' })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>X</Code><Message>y</Message></Error>',
    );
  });
});

describe(escapeXmlText.name, () => {
  it('escapes markup and characters XML 1.0 cannot carry raw, keeping tab and newline', () => {
    expect(escapeXmlText(`&<>"'\u0000\u0008\t\n\r\u001f\uffffü`)).toBe(
      '&amp;&lt;&gt;&quot;&apos;&#x0;&#x8;\t\n&#xD;&#x1F;&#xFFFF;ü',
    );
  });
});
