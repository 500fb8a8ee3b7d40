import {
  DeleteObjectsCommand,
  GetBucketVersioningCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  PutBucketTaggingCommand,
  CompleteMultipartUploadCommand,
  PutObjectTaggingCommand,
  PutBucketVersioningCommand,
  CreateBucketCommand,
} from '@aws-sdk/client-s3';
import { S3Error } from './errors';
import {
  parseCompleteMultipartUpload,
  parseCreateBucketConfiguration,
  parseDeleteObjects,
  parseTagging,
  parseTaggingHeader,
  parseVersioningConfiguration,
  parseXmlBody,
  S3_XMLNS,
  toXml,
  toXmlOrdered,
  xmlLeaf,
} from './xml';
import { CaptureServer } from './spec-support/sdk-capture';

function thrown(fn: () => unknown): S3Error {
  try {
    fn();
  } catch (error) {
    if (error instanceof S3Error) return error;
    throw error;
  }
  throw new Error('expected an S3Error');
}

describe(toXml.name, () => {
  it('renders nested objects and arrays in key order, with the declaration and S3 namespace', () => {
    const sut = toXml('ListAllMyBucketsResult', {
      Owner: { ID: 'o1', DisplayName: 'me' },
      Buckets: {
        Bucket: [
          { Name: 'a', CreationDate: new Date('2024-01-02T03:04:05Z') },
          { Name: 'b', CreationDate: '2024' },
        ],
      },
    });
    expect(sut).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
        `<ListAllMyBucketsResult xmlns="${S3_XMLNS}"><Owner><ID>o1</ID><DisplayName>me</DisplayName></Owner>` +
        '<Buckets><Bucket><Name>a</Name><CreationDate>2024-01-02T03:04:05.000Z</CreationDate></Bucket>' +
        '<Bucket><Name>b</Name><CreationDate>2024</CreationDate></Bucket></Buckets></ListAllMyBucketsResult>',
    );
  });

  it('omits null and undefined, keeps empty strings, renders numbers, booleans and attributes', () => {
    const sut = toXml(
      'R',
      {
        A: undefined,
        B: null,
        C: '',
        D: 0,
        E: false,
        F: [],
        G: { '@xsi:type': 'CanonicalUser', '@skip': undefined, ID: 'x' },
        H: 12n,
      },
      { xmlns: null },
    );
    expect(sut).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<R><C></C><D>0</D><E>false</E><G xsi:type="CanonicalUser"><ID>x</ID></G><H>12</H></R>',
    );
  });

  it('renders a scalar as the root text and accepts another namespace', () => {
    expect(toXml('LocationConstraint', 'eu-west-1', { xmlns: 'urn:x' })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<LocationConstraint xmlns="urn:x">eu-west-1</LocationConstraint>',
    );
    expect(toXml('LocationConstraint', '')).toBe(
      `<?xml version="1.0" encoding="UTF-8"?>\n<LocationConstraint xmlns="${S3_XMLNS}"></LocationConstraint>`,
    );
  });

  it('escapes markup and control characters in text and attributes', () => {
    const sut = toXml('R', { Key: `a&b<c>d"e'f\u0001g\rh`, X: { '@a': '"<&' } }, { xmlns: null });
    expect(sut).toContain('<Key>a&amp;b&lt;c&gt;d&quot;e&apos;f&#x1;g&#xD;h</Key>');
    expect(sut).toContain('<X a="&quot;&lt;&amp;"></X>');
  });

  it('round-trips through the request parser', () => {
    const keys = ['a & b', '<tag>', 'ü €', ' lead and trail ', 'quote"s', 'line\nbreak'];
    const xml = toXml('Delete', { Object: keys.map((Key) => ({ Key })), Quiet: true });
    expect(parseDeleteObjects(xml)).toEqual({ quiet: true, objects: keys.map((key) => ({ key })) });
  });
});

describe(toXmlOrdered.name, () => {
  it('renders entries in the given order, repeating names', () => {
    const sut = toXmlOrdered('ListVersionsResult', [
      ['Name', 'b'],
      ['Version', { Key: 'k', VersionId: '2' }],
      ['DeleteMarker', { Key: 'k', VersionId: '1' }],
      ['Version', { Key: 'k', VersionId: '0' }],
      ['NextKeyMarker', undefined],
    ]);
    expect(sut).toBe(
      `<?xml version="1.0" encoding="UTF-8"?>\n<ListVersionsResult xmlns="${S3_XMLNS}"><Name>b</Name>` +
        '<Version><Key>k</Key><VersionId>2</VersionId></Version><DeleteMarker><Key>k</Key><VersionId>1</VersionId></DeleteMarker>' +
        '<Version><Key>k</Key><VersionId>0</VersionId></Version></ListVersionsResult>',
    );
  });
});

describe('responses read by AWS SDK v3', () => {
  const server = new CaptureServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());

  it('parses keys with markup, quotes, unicode and a CR exactly', async () => {
    const keys = ['a&b', '<x>', 'q"u\'o', 'ünï €/日本', 'cr\rlf\n', ' spaced '];
    server.respond = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        toXml('ListBucketResult', {
          Name: 'bucket',
          Prefix: '',
          KeyCount: keys.length,
          MaxKeys: 1000,
          IsTruncated: false,
          Contents: keys.map((Key) => ({
            Key,
            LastModified: new Date('2024-05-06T07:08:09.123Z'),
            ETag: '"abc"',
            Size: 3,
            StorageClass: 'STANDARD',
          })),
        }),
      );
    };
    const client = server.client();
    const out = await client.send(new ListObjectsV2Command({ Bucket: 'bucket' }));
    client.destroy();
    server.respond = undefined;
    expect(out.Contents!.map((c) => c.Key)).toEqual(keys);
    expect(out.Contents![0].LastModified).toEqual(new Date('2024-05-06T07:08:09.123Z'));
    expect(out.Contents![0].ETag).toBe('"abc"');
    expect(out.IsTruncated).toBe(false);
  });

  it('parses interleaved versions and delete markers', async () => {
    server.respond = (_req, res) => {
      res.writeHead(200);
      res.end(
        toXmlOrdered('ListVersionsResult', [
          ['Name', 'b'],
          ['IsTruncated', false],
          [
            'Version',
            { Key: 'k', VersionId: 'v2', IsLatest: false, LastModified: new Date(0), ETag: '"e"', Size: 1 },
          ],
          ['DeleteMarker', { Key: 'k', VersionId: 'v3', IsLatest: true, LastModified: new Date(0) }],
        ]),
      );
    };
    const client = server.client();
    const out = await client.send(new ListObjectVersionsCommand({ Bucket: 'b' }));
    client.destroy();
    server.respond = undefined;
    expect(out.Versions).toEqual([
      expect.objectContaining({ Key: 'k', VersionId: 'v2', IsLatest: false, Size: 1 }),
    ]);
    expect(out.DeleteMarkers).toEqual([expect.objectContaining({ VersionId: 'v3', IsLatest: true })]);
  });

  it('parses an empty VersioningConfiguration and a status', async () => {
    const client = server.client();
    for (const [body, status] of [
      [toXml('VersioningConfiguration', {}), undefined],
      [toXml('VersioningConfiguration', { Status: 'Enabled' }), 'Enabled'],
    ] as const) {
      server.respond = (_req, res) => res.writeHead(200).end(body);
      expect((await client.send(new GetBucketVersioningCommand({ Bucket: 'b' }))).Status).toBe(status);
    }
    client.destroy();
    server.respond = undefined;
  });
});

describe(parseXmlBody.name, () => {
  it('returns the root with children in order and decoded text', () => {
    const sut = parseXmlBody(
      `\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<!-- hi --><s3:Delete xmlns:s3="${S3_XMLNS}"><Key>&#x41;&#66;&amp;<![CDATA[<&amp;>]]></Key></s3:Delete>\n`,
      'Delete',
    );
    expect(sut.name).toBe('Delete');
    expect(xmlLeaf(sut, 'Key')).toBe('AB&<&amp;>');
  });

  it.each([
    ['empty', ''],
    ['not XML', 'hello'],
    ['unclosed', '<Delete><Object></Delete>'],
    ['the wrong root', '<Deleted></Deleted>'],
    ['two roots', '<Delete/><Delete/>'],
    ['text after the root', '<Delete></Delete>trailing'],
    ['a DOCTYPE', '<!DOCTYPE Delete><Delete/>'],
    ['an entity definition', '<!DOCTYPE Delete [<!ENTITY x "y">]><Delete>&x;</Delete>'],
    ['an unknown entity', '<Delete>&nbsp;</Delete>'],
    ['a bare ampersand', '<Delete>a & b</Delete>'],
    ['a reference to an illegal character', '<Delete>&#0;</Delete>'],
    ['a raw control character', '<Delete>\u0001</Delete>'],
    ['an out-of-range reference', '<Delete>&#x110000;</Delete>'],
  ])('rejects %s as MalformedXML', (_case, text) => {
    const error = thrown(() => parseXmlBody(text, 'Delete'));
    expect(error.code).toBe('MalformedXML');
    expect(error.httpStatus).toBe(400);
  });
});

describe(parseDeleteObjects.name, () => {
  it('reads objects, version ids and Quiet', () => {
    const sut = parseDeleteObjects(
      '<Delete><Quiet>TRUE</Quiet><Object><Key>a</Key></Object><Object><Key>b/c d</Key><VersionId>v1</VersionId></Object><Object><Key></Key><VersionId></VersionId></Object></Delete>',
    );
    expect(sut).toEqual({
      quiet: true,
      objects: [{ key: 'a' }, { key: 'b/c d', versionId: 'v1' }, { key: '' }],
    });
    expect(parseDeleteObjects('<Delete><Object><Key>x</Key></Object></Delete>').quiet).toBe(false);
  });

  it('accepts 1000 objects and rejects 0 or 1001', () => {
    const body = (n: number) => `<Delete>${'<Object><Key>k</Key></Object>'.repeat(n)}</Delete>`;
    expect(parseDeleteObjects(body(1000)).objects).toHaveLength(1000);
    expect(thrown(() => parseDeleteObjects(body(0))).code).toBe('MalformedXML');
    expect(thrown(() => parseDeleteObjects(body(1001))).code).toBe('MalformedXML');
  });

  it.each([
    '<Delete><Object><VersionId>v</VersionId></Object></Delete>',
    '<Delete><Object><Key>a</Key><Key>b</Key></Object></Delete>',
    '<Delete><Object><Key><b/></Key></Object></Delete>',
    '<Delete><Quiet>maybe</Quiet><Object><Key>a</Key></Object></Delete>',
  ])('rejects %s', (text) => {
    expect(thrown(() => parseDeleteObjects(text)).code).toBe('MalformedXML');
  });

  it('reads what AWS SDK v3 sends', async () => {
    const server = new CaptureServer();
    await server.start();
    server.respond = (_req, res) => res.writeHead(200).end(toXml('DeleteResult', {}));
    const client = server.client();
    const keys = ['a&b', '<c>', 'ü/€', ' x '];
    await client.send(
      new DeleteObjectsCommand({
        Bucket: 'b',
        Delete: {
          Objects: keys.map((Key, i) => ({ Key, VersionId: i === 1 ? 'v' : undefined })),
          Quiet: true,
        },
      }),
    );
    client.destroy();
    await server.stop();
    expect(parseDeleteObjects(server.requests[0].body.toString('utf8'))).toEqual({
      quiet: true,
      objects: keys.map((key, i) => (i === 1 ? { key, versionId: 'v' } : { key })),
    });
  });
});

describe(parseCompleteMultipartUpload.name, () => {
  it('reads parts, quoting ETags and keeping checksums', () => {
    const sut = parseCompleteMultipartUpload(
      '<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"a1"</ETag><ChecksumCRC32>AAAAAA==</ChecksumCRC32></Part>' +
        '<Part><ETag>&quot;b2&quot;</ETag><PartNumber>2</PartNumber></Part><Part><PartNumber>10000</PartNumber><ETag>c3</ETag></Part></CompleteMultipartUpload>',
    );
    expect(sut).toEqual([
      { partNumber: 1, etag: '"a1"', checksums: { CRC32: 'AAAAAA==' } },
      { partNumber: 2, etag: '"b2"', checksums: {} },
      { partNumber: 10000, etag: '"c3"', checksums: {} },
    ]);
  });

  it.each<[string, string, string]>([
    ['no parts', '<CompleteMultipartUpload></CompleteMultipartUpload>', 'MalformedXML'],
    [
      'a part without ETag',
      '<CompleteMultipartUpload><Part><PartNumber>1</PartNumber></Part></CompleteMultipartUpload>',
      'MalformedXML',
    ],
    [
      'a part without number',
      '<CompleteMultipartUpload><Part><ETag>x</ETag></Part></CompleteMultipartUpload>',
      'MalformedXML',
    ],
    [
      'a non-numeric part number',
      '<CompleteMultipartUpload><Part><PartNumber>1a</PartNumber><ETag>x</ETag></Part></CompleteMultipartUpload>',
      'MalformedXML',
    ],
    [
      'part number 0',
      '<CompleteMultipartUpload><Part><PartNumber>0</PartNumber><ETag>x</ETag></Part></CompleteMultipartUpload>',
      'InvalidArgument',
    ],
    [
      'part number 10001',
      '<CompleteMultipartUpload><Part><PartNumber>10001</PartNumber><ETag>x</ETag></Part></CompleteMultipartUpload>',
      'InvalidArgument',
    ],
    [
      'descending parts',
      '<CompleteMultipartUpload><Part><PartNumber>2</PartNumber><ETag>x</ETag></Part><Part><PartNumber>1</PartNumber><ETag>y</ETag></Part></CompleteMultipartUpload>',
      'InvalidPartOrder',
    ],
    [
      'a repeated part',
      '<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>x</ETag></Part><Part><PartNumber>1</PartNumber><ETag>y</ETag></Part></CompleteMultipartUpload>',
      'InvalidPartOrder',
    ],
    [
      'an invalid checksum',
      '<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>x</ETag><ChecksumSHA256>AAAAAA==</ChecksumSHA256></Part></CompleteMultipartUpload>',
      'InvalidRequest',
    ],
    [
      'the wrong root',
      '<CompleteUpload><Part><PartNumber>1</PartNumber><ETag>x</ETag></Part></CompleteUpload>',
      'MalformedXML',
    ],
  ])('rejects %s', (_case, text, code) => {
    expect(thrown(() => parseCompleteMultipartUpload(text)).code).toBe(code);
  });
});

describe(parseTagging.name, () => {
  const tagging = (tags: [string, string][]) =>
    `<Tagging><TagSet>${tags.map(([k, v]) => `<Tag><Key>${k}</Key><Value>${v}</Value></Tag>`).join('')}</TagSet></Tagging>`;

  it('reads tags as key → value, an empty value and an empty set included', () => {
    expect(
      parseTagging(
        tagging([
          ['a', '1'],
          ['b c', ''],
          ['__proto__', 'x'],
        ]),
        'object',
      ),
    ).toEqual({ a: '1', 'b c': '', ['__proto__']: 'x' });
    expect(Object.getPrototypeOf(parseTagging(tagging([['__proto__', 'x']]), 'object'))).toBe(
      Object.prototype,
    );
    expect(parseTagging('<Tagging><TagSet/></Tagging>', 'bucket')).toEqual({});
  });

  it('allows 10 object tags and 50 bucket tags, and no more', () => {
    const tags = (n: number) => Array.from({ length: n }, (_, i): [string, string] => [`k${i}`, 'v']);
    expect(Object.keys(parseTagging(tagging(tags(10)), 'object'))).toHaveLength(10);
    expect(thrown(() => parseTagging(tagging(tags(11)), 'object'))).toMatchObject({
      code: 'InvalidTag',
      message: 'Object tags cannot be greater than 10',
    });
    expect(Object.keys(parseTagging(tagging(tags(50)), 'bucket'))).toHaveLength(50);
    expect(thrown(() => parseTagging(tagging(tags(51)), 'bucket')).code).toBe('InvalidTag');
  });

  it('measures key and value lengths in characters', () => {
    expect(() => parseTagging(tagging([['ü'.repeat(128), '€'.repeat(256)]]), 'object')).not.toThrow();
    expect(thrown(() => parseTagging(tagging([['k'.repeat(129), 'v']]), 'object')).message).toMatch(
      /TagKey.*too long/,
    );
    expect(thrown(() => parseTagging(tagging([['k', 'v'.repeat(257)]]), 'object')).message).toMatch(
      /TagValue.*too long/,
    );
  });

  it.each<[string, string, string]>([
    ['an empty key', tagging([['', 'v']]), 'InvalidTag'],
    [
      'a repeated key',
      tagging([
        ['a', '1'],
        ['a', '2'],
      ]),
      'InvalidTag',
    ],
    ['an aws: key', tagging([['aws:x', '1']]), 'InvalidTag'],
    ['a tag without Value', '<Tagging><TagSet><Tag><Key>a</Key></Tag></TagSet></Tagging>', 'MalformedXML'],
    ['no TagSet', '<Tagging></Tagging>', 'MalformedXML'],
    ['two TagSets', '<Tagging><TagSet/><TagSet/></Tagging>', 'MalformedXML'],
  ])('rejects %s', (_case, text, code) => {
    expect(thrown(() => parseTagging(text, 'object')).code).toBe(code);
  });

  it('reads what AWS SDK v3 sends for object and bucket tagging', async () => {
    const server = new CaptureServer();
    await server.start();
    const client = server.client();
    const TagSet = [
      { Key: 'a&b', Value: '<v>' },
      { Key: 'ü', Value: '' },
    ];
    await client.send(new PutObjectTaggingCommand({ Bucket: 'b', Key: 'k', Tagging: { TagSet } }));
    await client.send(new PutBucketTaggingCommand({ Bucket: 'b', Tagging: { TagSet } }));
    client.destroy();
    await server.stop();
    for (const [req, target] of [
      [server.requests[0], 'object'],
      [server.requests[1], 'bucket'],
    ] as const) {
      expect(parseTagging(req.body.toString('utf8'), target)).toEqual({ 'a&b': '<v>', ü: '' });
    }
  });
});

describe(parseTaggingHeader.name, () => {
  it('reads the URL query form', () => {
    expect(parseTaggingHeader('a=1&b=x%20y&c=p+q&d&e=%C3%BC%26')).toEqual({
      a: '1',
      b: 'x y',
      c: 'p q',
      d: '',
      e: 'ü&',
    });
    expect(parseTaggingHeader('')).toEqual({});
  });

  it('rejects a repeated key as InvalidArgument and too many tags as InvalidTag', () => {
    expect(thrown(() => parseTaggingHeader('a=1&a=2'))).toMatchObject({
      code: 'InvalidArgument',
      extra: { ArgumentName: 'x-amz-tagging' },
    });
    const eleven = Array.from({ length: 11 }, (_, i) => `k${i}=v`).join('&');
    expect(thrown(() => parseTaggingHeader(eleven)).code).toBe('InvalidTag');
  });
});

describe(parseVersioningConfiguration.name, () => {
  it('reads Status and MfaDelete', () => {
    expect(
      parseVersioningConfiguration(
        `<VersioningConfiguration xmlns="${S3_XMLNS}"><Status>Enabled</Status></VersioningConfiguration>`,
      ),
    ).toEqual({ status: 'Enabled' });
    expect(
      parseVersioningConfiguration(
        '<VersioningConfiguration><Status>Suspended</Status><MfaDelete>Disabled</MfaDelete></VersioningConfiguration>',
      ),
    ).toEqual({
      status: 'Suspended',
      mfaDelete: 'Disabled',
    });
  });

  it.each<[string, string]>([
    ['<VersioningConfiguration><Status>enabled</Status></VersioningConfiguration>', 'MalformedXML'],
    ['<VersioningConfiguration><Status>Disabled</Status></VersioningConfiguration>', 'MalformedXML'],
    [
      '<VersioningConfiguration><Status>Enabled</Status><MfaDelete>On</MfaDelete></VersioningConfiguration>',
      'MalformedXML',
    ],
    ['<VersioningConfiguration></VersioningConfiguration>', 'IllegalVersioningConfigurationException'],
  ])('rejects %s with %s', (text, code) => {
    expect(thrown(() => parseVersioningConfiguration(text)).code).toBe(code);
  });

  it('reads what AWS SDK v3 sends', async () => {
    const server = new CaptureServer();
    await server.start();
    const client = server.client();
    await client.send(
      new PutBucketVersioningCommand({ Bucket: 'b', VersioningConfiguration: { Status: 'Suspended' } }),
    );
    client.destroy();
    await server.stop();
    expect(parseVersioningConfiguration(server.requests[0].body.toString('utf8'))).toEqual({
      status: 'Suspended',
    });
  });
});

describe(parseCreateBucketConfiguration.name, () => {
  it('reads the location, treating an empty body or constraint as none', () => {
    expect(parseCreateBucketConfiguration('')).toEqual({});
    expect(
      parseCreateBucketConfiguration(
        '<CreateBucketConfiguration><LocationConstraint></LocationConstraint></CreateBucketConfiguration>',
      ),
    ).toEqual({});
    expect(
      parseCreateBucketConfiguration(
        `<CreateBucketConfiguration xmlns="${S3_XMLNS}"><LocationConstraint>eu-west-1</LocationConstraint></CreateBucketConfiguration>`,
      ),
    ).toEqual({ locationConstraint: 'eu-west-1' });
    expect(thrown(() => parseCreateBucketConfiguration('<Create/>')).code).toBe('MalformedXML');
  });

  it('reads what AWS SDK v3 sends', async () => {
    const server = new CaptureServer();
    await server.start();
    const client = server.client();
    await client.send(
      new CreateBucketCommand({
        Bucket: 'b',
        CreateBucketConfiguration: { LocationConstraint: 'ap-south-1' },
      }),
    );
    await client
      .send(
        new CompleteMultipartUploadCommand({
          Bucket: 'b',
          Key: 'k',
          UploadId: 'u',
          MultipartUpload: {
            Parts: [
              { PartNumber: 1, ETag: '"e1"', ChecksumCRC32: 'AAAAAA==' },
              { PartNumber: 2, ETag: '"e2"' },
            ],
          },
        }),
      )
      .catch(() => undefined); // the empty 200 is not a valid CompleteMultipartUpload answer; the request is what matters
    client.destroy();
    await server.stop();
    expect(parseCreateBucketConfiguration(server.requests[0].body.toString('utf8'))).toEqual({
      locationConstraint: 'ap-south-1',
    });
    expect(parseCompleteMultipartUpload(server.requests[1].body.toString('utf8'))).toEqual([
      { partNumber: 1, etag: '"e1"', checksums: { CRC32: 'AAAAAA==' } },
      { partNumber: 2, etag: '"e2"', checksums: {} },
    ]);
  });
});
