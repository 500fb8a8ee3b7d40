import { LifecycleConfiguration } from './configuration';
import { parseLifecycleXml } from './parse-lifecycle';
import { renderLifecycleXml } from './render-lifecycle';

describe(renderLifecycleXml.name, () => {
  const sut = renderLifecycleXml;

  const config: LifecycleConfiguration = {
    transitionDefaultMinimumObjectSize: 'varies_by_storage_class',
    rules: [
      {
        id: 'archive',
        status: 'Enabled',
        filterForm: 'and',
        filter: {
          prefix: 'docs/',
          tags: [{ key: 'class', value: 'a&b' }],
          objectSizeGreaterThan: 10,
          objectSizeLessThan: 99,
        },
        expiration: { days: 365 },
        transitions: [
          { days: 30, storageClass: 'STANDARD_IA' },
          { days: 90, storageClass: 'GLACIER' },
        ],
        noncurrentVersionTransitions: [
          { noncurrentDays: 30, newerNoncurrentVersions: 3, storageClass: 'GLACIER_IR' },
        ],
        noncurrentVersionExpiration: { noncurrentDays: 60, newerNoncurrentVersions: 5 },
      },
      {
        id: 'rule-2',
        status: 'Disabled',
        filterForm: 'filter',
        filter: { tags: [] },
        expiration: { expiredObjectDeleteMarker: false },
        transitions: [],
        noncurrentVersionTransitions: [],
        abortIncompleteMultipartUpload: { daysAfterInitiation: 3 },
      },
      {
        id: 'dated <1>',
        status: 'Enabled',
        filterForm: 'filter',
        filter: { tags: [{ key: 'k', value: '' }] },
        expiration: { date: '2030-01-01T00:00:00.000Z' },
        transitions: [{ date: '2029-01-01T00:00:00.000Z', storageClass: 'DEEP_ARCHIVE' }],
        noncurrentVersionTransitions: [],
      },
      {
        id: 'small',
        status: 'Enabled',
        filterForm: 'filter',
        filter: { tags: [], objectSizeLessThan: 1024 },
        expiration: { days: 1 },
        transitions: [],
        noncurrentVersionTransitions: [],
      },
    ],
  };

  it('renders the GetBucketLifecycleConfiguration document in the S3 namespace', () => {
    const xml = sut(config);
    expect(
      xml.startsWith(
        '<?xml version="1.0" encoding="UTF-8"?>\n<LifecycleConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
      ),
    ).toBe(true);
    expect(xml).toContain(
      '<Rule><ID>archive</ID><Filter><And><Prefix>docs/</Prefix><Tag><Key>class</Key><Value>a&amp;b</Value></Tag>' +
        '<ObjectSizeGreaterThan>10</ObjectSizeGreaterThan><ObjectSizeLessThan>99</ObjectSizeLessThan></And></Filter>' +
        '<Status>Enabled</Status><Expiration><Days>365</Days></Expiration>' +
        '<Transition><Days>30</Days><StorageClass>STANDARD_IA</StorageClass></Transition>' +
        '<Transition><Days>90</Days><StorageClass>GLACIER</StorageClass></Transition>' +
        '<NoncurrentVersionTransition><NoncurrentDays>30</NoncurrentDays><NewerNoncurrentVersions>3</NewerNoncurrentVersions><StorageClass>GLACIER_IR</StorageClass></NoncurrentVersionTransition>' +
        '<NoncurrentVersionExpiration><NoncurrentDays>60</NoncurrentDays><NewerNoncurrentVersions>5</NewerNoncurrentVersions></NoncurrentVersionExpiration></Rule>',
    );
    expect(xml).toContain(
      '<Rule><ID>rule-2</ID><Filter></Filter><Status>Disabled</Status><Expiration><ExpiredObjectDeleteMarker>false</ExpiredObjectDeleteMarker></Expiration>' +
        '<AbortIncompleteMultipartUpload><DaysAfterInitiation>3</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>',
    );
    expect(xml).toContain('<ID>dated &lt;1&gt;</ID><Filter><Tag><Key>k</Key><Value></Value></Tag></Filter>');
    expect(xml).toContain('<Expiration><Date>2030-01-01T00:00:00.000Z</Date></Expiration>');
    expect(xml).toContain('<Filter><ObjectSizeLessThan>1024</ObjectSizeLessThan></Filter>');
  });

  it('renders a legacy rule with its own Prefix', () => {
    const legacy = parseLifecycleXml(
      '<LifecycleConfiguration><Rule><Prefix>old/</Prefix><Status>Enabled</Status><Expiration><Days>2</Days></Expiration></Rule></LifecycleConfiguration>',
    );
    expect(sut(legacy)).toContain('<Rule><ID>rule-1</ID><Prefix>old/</Prefix><Status>Enabled</Status>');
  });

  it('gives back what it was given when parsed again', () => {
    const reparsed = parseLifecycleXml(sut(config), {
      transitionDefaultMinimumObjectSize: config.transitionDefaultMinimumObjectSize,
    });
    expect(reparsed).toEqual(config);
  });

  it('escapes CR (which XML would read back as LF) and quotes so that they survive the round trip', () => {
    const odd: LifecycleConfiguration = {
      ...config,
      rules: [{ ...config.rules[3], filter: { tags: [], prefix: 'tab\there\r\n"\'' }, filterForm: 'filter' }],
    };
    const xml = sut(odd);
    expect(xml).toContain('<Prefix>tab\there&#xD;\n&quot;&apos;</Prefix>');
    expect(parseLifecycleXml(xml, { transitionDefaultMinimumObjectSize: 'varies_by_storage_class' })).toEqual(
      odd,
    );
  });
});
