import { LifecycleConfiguration } from './configuration';
import { parseLifecycleXml } from './parse-lifecycle';
import { renderLifecycleXml } from './render-lifecycle';
import {
  decodeStoredLifecycle,
  encodeStoredLifecycle,
  STORED_LIFECYCLE_VERSION,
  StoredLifecycleError,
} from './stored-lifecycle';

const xml = (rules: string) => `<LifecycleConfiguration>${rules}</LifecycleConfiguration>`;

/** Every element the parser knows, in every filter form. */
const CONFIG: LifecycleConfiguration = parseLifecycleXml(
  xml(
    '<Rule><ID>all</ID><Filter><Prefix>logs/</Prefix></Filter><Status>Enabled</Status>' +
      '<Transition><Days>30</Days><StorageClass>STANDARD_IA</StorageClass></Transition>' +
      '<Transition><Days>90</Days><StorageClass>GLACIER</StorageClass></Transition>' +
      '<Expiration><Days>365</Days></Expiration>' +
      '<NoncurrentVersionTransition><NoncurrentDays>30</NoncurrentDays><NewerNoncurrentVersions>2</NewerNoncurrentVersions><StorageClass>ONEZONE_IA</StorageClass></NoncurrentVersionTransition>' +
      '<NoncurrentVersionExpiration><NoncurrentDays>365</NoncurrentDays><NewerNoncurrentVersions>5</NewerNoncurrentVersions></NoncurrentVersionExpiration>' +
      '<AbortIncompleteMultipartUpload><DaysAfterInitiation>3</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>' +
      '<Rule><ID>and</ID><Filter><And><Prefix>p/</Prefix><Tag><Key>a</Key><Value>1</Value></Tag><ObjectSizeGreaterThan>10</ObjectSizeGreaterThan><ObjectSizeLessThan>2000000</ObjectSizeLessThan></And></Filter>' +
      '<Status>Disabled</Status><Transition><Date>2027-01-01T00:00:00Z</Date><StorageClass>DEEP_ARCHIVE</StorageClass></Transition></Rule>' +
      '<Rule><ID>tag</ID><Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>' +
      '<Rule><ID>markers</ID><Filter></Filter><Status>Enabled</Status><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration></Rule>',
  ),
  { transitionDefaultMinimumObjectSize: 'varies_by_storage_class' },
);
/** A Lifecycle V1 rule (its own Prefix, no Filter). */
const LEGACY: LifecycleConfiguration = parseLifecycleXml(
  xml(
    '<Rule><Prefix>old/</Prefix><Status>Enabled</Status><Expiration><Date>2027-06-01T00:00:00.000Z</Date></Expiration></Rule>',
  ),
);
const CONFIGS = [
  ['every element and filter form', CONFIG],
  ['a Lifecycle V1 rule', LEGACY],
] as const;

describe(decodeStoredLifecycle.name, () => {
  const sut = decodeStoredLifecycle;

  it.each(CONFIGS)(
    'reads a row of %s written before the format had a version (JSON.stringify of the parsed configuration) as it was read then',
    (_what, config) => {
      const stored = JSON.stringify(config);
      expect(sut(stored)).toStrictEqual(JSON.parse(stored));
      expect(sut(stored)).toEqual(config);
    },
  );

  it.each(CONFIGS)(
    'reads back what it writes for %s, with the same XML for GetBucketLifecycleConfiguration',
    (_what, config) => {
      const back = sut(encodeStoredLifecycle(config));
      expect(back).toEqual(config);
      expect(renderLifecycleXml(back)).toBe(renderLifecycleXml(config));
    },
  );

  it('writes the format version beside the configuration, which older readers ignore', () => {
    const stored = JSON.parse(encodeStoredLifecycle(CONFIG)) as Record<string, unknown>;
    expect(stored).toEqual({ v: STORED_LIFECYCLE_VERSION, ...JSON.parse(JSON.stringify(CONFIG)) });
  });

  it('drops unknown fields and fills what a sparse row leaves out', () => {
    const sparse = { rules: [{ id: 'r', status: 'Enabled', filterForm: 'filter', filter: {}, extra: 1 }] };
    expect(sut(JSON.stringify(sparse))).toStrictEqual({
      ...withRule({}),
      transitionDefaultMinimumObjectSize: 'all_storage_classes_128K',
    });
  });

  it.each([
    ['not JSON', '{rules', ''],
    ['not an object', '[]', ''],
    ['no rules', '{}', 'rules'],
    ['a version from a newer release', JSON.stringify({ ...CONFIG, v: 2 }), 'v'],
    [
      'a rule without status',
      JSON.stringify({ rules: [{ id: 'r', filterForm: 'filter', filter: { tags: [] } }] }),
      'rules[0].status',
    ],
    [
      'an unknown storage class',
      JSON.stringify(withRule({ transitions: [{ days: 1, storageClass: 'TAPE' }] })),
      'rules[0].transitions[0].storageClass',
    ],
    [
      'a day count as text',
      JSON.stringify(withRule({ expiration: { days: '30' } })),
      'rules[0].expiration.days',
    ],
    [
      'a negative size',
      JSON.stringify(withRule({ filter: { tags: [], objectSizeLessThan: -1 } })),
      'rules[0].filter.objectSizeLessThan',
    ],
    [
      'a tag without value',
      JSON.stringify(withRule({ filter: { tags: [{ key: 'k' }] } })),
      'rules[0].filter.tags[0].value',
    ],
    [
      'a date that is not one',
      JSON.stringify(withRule({ expiration: { date: 'tomorrow' } })),
      'rules[0].expiration.date',
    ],
    [
      'an unknown minimum size',
      JSON.stringify({ rules: [], transitionDefaultMinimumObjectSize: 'none' }),
      'transitionDefaultMinimumObjectSize',
    ],
  ])('refuses %s, naming the faulty field', (_what, stored, path) => {
    let error: unknown;
    try {
      sut(stored, 'bucket logs');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StoredLifecycleError);
    expect((error as StoredLifecycleError).path).toBe(path);
    expect((error as Error).message).toMatch(/^bucket logs: /);
  });
});

function withRule(fields: Record<string, unknown>) {
  return {
    rules: [
      {
        id: 'r',
        status: 'Enabled',
        filterForm: 'filter',
        filter: { tags: [] },
        transitions: [],
        noncurrentVersionTransitions: [],
        ...fields,
      },
    ],
  };
}
