import { LifecycleConfigurationError, LifecycleErrorCode, MALFORMED_XML_MESSAGE } from './errors';
import { parseLifecycleXml, ParseLifecycleOptions } from './parse-lifecycle';

const doc = (...rules: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<LifecycleConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${rules.join('')}</LifecycleConfiguration>`;

/** A V2 rule: `body` holds its actions; the filter defaults to a prefix. */
const rule = (body: string, filter = '<Filter><Prefix>logs/</Prefix></Filter>', id = '<ID>r</ID>') =>
  `<Rule>${id}${filter}<Status>Enabled</Status>${body}</Rule>`;

const expire = (days = 1) => `<Expiration><Days>${days}</Days></Expiration>`;

function refusal(xml: string, options?: ParseLifecycleOptions): LifecycleConfigurationError {
  try {
    parseLifecycleXml(xml, options);
  } catch (e) {
    if (e instanceof LifecycleConfigurationError) return e;
    throw e;
  }
  throw new Error('the configuration was accepted');
}

describe(parseLifecycleXml.name, () => {
  const sut = parseLifecycleXml;

  describe('accepted configurations', () => {
    it('reads every action of a rule', () => {
      const config = sut(
        doc(
          rule(
            `<Transition><Days>30</Days><StorageClass>STANDARD_IA</StorageClass></Transition>` +
              `<Transition><Days>90</Days><StorageClass>GLACIER</StorageClass></Transition>` +
              `<Expiration><Days>365</Days></Expiration>` +
              `<NoncurrentVersionTransition><NoncurrentDays>30</NoncurrentDays><NewerNoncurrentVersions>2</NewerNoncurrentVersions><StorageClass>ONEZONE_IA</StorageClass></NoncurrentVersionTransition>` +
              `<NoncurrentVersionExpiration><NoncurrentDays>365</NoncurrentDays><NewerNoncurrentVersions>5</NewerNoncurrentVersions></NoncurrentVersionExpiration>` +
              `<AbortIncompleteMultipartUpload><DaysAfterInitiation>3</DaysAfterInitiation></AbortIncompleteMultipartUpload>`,
          ),
        ),
      );
      expect(config).toEqual({
        transitionDefaultMinimumObjectSize: 'all_storage_classes_128K',
        rules: [
          {
            id: 'r',
            status: 'Enabled',
            filterForm: 'filter',
            filter: { prefix: 'logs/', tags: [] },
            expiration: { days: 365 },
            transitions: [
              { days: 30, storageClass: 'STANDARD_IA' },
              { days: 90, storageClass: 'GLACIER' },
            ],
            noncurrentVersionTransitions: [
              { noncurrentDays: 30, newerNoncurrentVersions: 2, storageClass: 'ONEZONE_IA' },
            ],
            noncurrentVersionExpiration: { noncurrentDays: 365, newerNoncurrentVersions: 5 },
            abortIncompleteMultipartUpload: { daysAfterInitiation: 3 },
          },
        ],
      });
    });

    it("reads the seed's example: old versions after a year, unfinished uploads after three days", () => {
      const config = sut(
        doc(
          rule(
            '<NoncurrentVersionExpiration><NoncurrentDays>365</NoncurrentDays></NoncurrentVersionExpiration>' +
              '<AbortIncompleteMultipartUpload><DaysAfterInitiation>3</DaysAfterInitiation></AbortIncompleteMultipartUpload>',
            '<Filter></Filter>',
          ),
        ),
      );
      expect(config.rules[0]).toMatchObject({
        filterForm: 'filter',
        filter: { tags: [] },
        noncurrentVersionExpiration: { noncurrentDays: 365 },
        abortIncompleteMultipartUpload: { daysAfterInitiation: 3 },
      });
    });

    it.each([
      ['an empty Filter (whole bucket)', '<Filter/>', 'filter', { tags: [] }],
      ['a Prefix', '<Filter><Prefix>a/</Prefix></Filter>', 'filter', { prefix: 'a/', tags: [] }],
      ['an empty Prefix', '<Filter><Prefix></Prefix></Filter>', 'filter', { prefix: '', tags: [] }],
      [
        'a Tag',
        '<Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter>',
        'filter',
        { tags: [{ key: 'k', value: 'v' }] },
      ],
      [
        'a Tag with an empty Value',
        '<Filter><Tag><Key>k</Key><Value/></Tag></Filter>',
        'filter',
        { tags: [{ key: 'k', value: '' }] },
      ],
      [
        'ObjectSizeGreaterThan',
        '<Filter><ObjectSizeGreaterThan>0</ObjectSizeGreaterThan></Filter>',
        'filter',
        { tags: [], objectSizeGreaterThan: 0 },
      ],
      [
        'ObjectSizeLessThan',
        '<Filter><ObjectSizeLessThan>1024</ObjectSizeLessThan></Filter>',
        'filter',
        { tags: [], objectSizeLessThan: 1024 },
      ],
      [
        'And of a prefix and two tags',
        '<Filter><And><Prefix>p/</Prefix><Tag><Key>a</Key><Value>1</Value></Tag><Tag><Key>b</Key><Value>2</Value></Tag></And></Filter>',
        'and',
        {
          prefix: 'p/',
          tags: [
            { key: 'a', value: '1' },
            { key: 'b', value: '2' },
          ],
        },
      ],
      [
        'And of a size window',
        '<Filter><And><ObjectSizeGreaterThan>10</ObjectSizeGreaterThan><ObjectSizeLessThan>20</ObjectSizeLessThan></And></Filter>',
        'and',
        { tags: [], objectSizeGreaterThan: 10, objectSizeLessThan: 20 },
      ],
      [
        'And of an empty prefix and a size',
        '<Filter><And><Prefix></Prefix><ObjectSizeGreaterThan>131072</ObjectSizeGreaterThan></And></Filter>',
        'and',
        { prefix: '', tags: [], objectSizeGreaterThan: 131072 },
      ],
      [
        'And of everything',
        '<Filter><And><Prefix>x</Prefix><Tag><Key>a</Key><Value>1</Value></Tag><ObjectSizeGreaterThan>1</ObjectSizeGreaterThan><ObjectSizeLessThan>9</ObjectSizeLessThan></And></Filter>',
        'and',
        { prefix: 'x', tags: [{ key: 'a', value: '1' }], objectSizeGreaterThan: 1, objectSizeLessThan: 9 },
      ],
    ])('reads a filter with %s', (_name, filter, form, expected) => {
      const [parsed] = sut(doc(rule(expire(), filter))).rules;
      expect(parsed.filterForm).toBe(form);
      expect(parsed.filter).toEqual(expected);
    });

    it('reads the legacy rule-level Prefix (Lifecycle V1)', () => {
      const config = sut(
        doc(
          '<Rule><ID>a</ID><Prefix>test1/</Prefix><Status>Enabled</Status><Expiration><Days>31</Days></Expiration></Rule>',
          '<Rule><ID>b</ID><Prefix>test2/</Prefix><Status>Disabled</Status><Expiration><Days>120</Days></Expiration></Rule>',
        ),
      );
      expect(config.rules.map((r) => [r.filterForm, r.filter.prefix, r.status])).toEqual([
        ['legacy-prefix', 'test1/', 'Enabled'],
        ['legacy-prefix', 'test2/', 'Disabled'],
      ]);
    });

    it('reads dates in the ISO 8601 forms S3 takes, as midnight UTC', () => {
      const dates = [
        '2026-01-01',
        '2026-01-01T00:00:00Z',
        '2026-01-01T00:00:00.000Z',
        '2026-01-01T03:00:00+03:00',
      ];
      for (const date of dates) {
        const [parsed] = sut(doc(rule(`<Expiration><Date>${date}</Date></Expiration>`))).rules;
        expect(parsed.expiration).toEqual({ date: '2026-01-01T00:00:00.000Z' });
      }
    });

    it('reads ExpiredObjectDeleteMarker true and false', () => {
      const marker = (v: string) =>
        sut(doc(rule(`<Expiration><ExpiredObjectDeleteMarker>${v}</ExpiredObjectDeleteMarker></Expiration>`)))
          .rules[0].expiration;
      expect(marker('true')).toEqual({ expiredObjectDeleteMarker: true });
      expect(marker('false')).toEqual({ expiredObjectDeleteMarker: false });
    });

    it('takes Transition Days 0 and a Transition Date', () => {
      const [days] = sut(
        doc(rule('<Transition><Days>0</Days><StorageClass>GLACIER</StorageClass></Transition>')),
      ).rules;
      expect(days.transitions).toEqual([{ days: 0, storageClass: 'GLACIER' }]);
      const [date] = sut(
        doc(
          rule(
            '<Transition><Date>2027-01-01T00:00:00Z</Date><StorageClass>DEEP_ARCHIVE</StorageClass></Transition>',
          ),
        ),
      ).rules;
      expect(date.transitions).toEqual([{ date: '2027-01-01T00:00:00.000Z', storageClass: 'DEEP_ARCHIVE' }]);
    });

    it('names rules given no ID after their position, skipping IDs already taken', () => {
      const config = sut(
        doc(
          rule(expire(), '<Filter><Prefix>a</Prefix></Filter>', ''),
          rule(expire(), '<Filter><Prefix>b</Prefix></Filter>', '<ID>rule-1</ID>'),
          rule(expire(), '<Filter><Prefix>c</Prefix></Filter>', '<ID></ID>'),
          rule(expire(), '<Filter><Prefix>d</Prefix></Filter>', '<ID>rule-4</ID>'),
          rule(expire(), '<Filter><Prefix>e</Prefix></Filter>', ''),
          rule(expire(), '<Filter><Prefix>f</Prefix></Filter>', '<ID>rule-5</ID>'),
        ),
      );
      expect(config.rules.map((r) => r.id)).toEqual([
        'rule-1-2',
        'rule-1',
        'rule-3',
        'rule-4',
        'rule-5-2',
        'rule-5',
      ]);
    });

    it('accepts an ID of 255 characters, 1000 rules, and keeps IDs and prefixes byte for byte', () => {
      expect(sut(doc(rule(expire(), undefined, `<ID>${'a'.repeat(255)}</ID>`))).rules[0].id).toHaveLength(
        255,
      );
      const many = Array.from({ length: 1000 }, (_, i) => rule(expire(), '<Filter/>', `<ID>${i}</ID>`));
      expect(sut(doc(...many)).rules).toHaveLength(1000);
      const [odd] = sut(
        doc(rule(expire(), '<Filter><Prefix> a&amp;b&lt;c </Prefix></Filter>', '<ID> x </ID>')),
      ).rules;
      expect(odd.filter.prefix).toBe(' a&b<c ');
      expect(odd.id).toBe(' x ');
    });

    it('takes pretty-printed XML', () => {
      const xml = `<LifecycleConfiguration>
        <Rule>
          <ID>pretty</ID>
          <Filter>
            <And>
              <Prefix>p/</Prefix>
              <ObjectSizeGreaterThan> 5 </ObjectSizeGreaterThan>
            </And>
          </Filter>
          <Status>Enabled</Status>
          <Expiration>
            <Days> 7 </Days>
          </Expiration>
        </Rule>
      </LifecycleConfiguration>`;
      expect(sut(xml).rules[0]).toMatchObject({
        filter: { prefix: 'p/', objectSizeGreaterThan: 5 },
        expiration: { days: 7 },
      });
    });

    it('takes the transition minimum-size header, defaulting to all_storage_classes_128K', () => {
      const xml = doc(rule(expire()));
      expect(sut(xml).transitionDefaultMinimumObjectSize).toBe('all_storage_classes_128K');
      expect(
        sut(xml, { transitionDefaultMinimumObjectSize: 'varies_by_storage_class' })
          .transitionDefaultMinimumObjectSize,
      ).toBe('varies_by_storage_class');
    });

    it('accepts a body given as bytes, with a byte order mark', () => {
      const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from(doc(rule(expire())))]);
      expect(sut(bytes)).toMatchObject({ rules: [{ id: 'r' }] });
    });

    it('ignores comments, reads CDATA and a namespace prefix', () => {
      const xml =
        '<s3:LifecycleConfiguration xmlns:s3="http://s3.amazonaws.com/doc/2006-03-01/"><!-- note -->' +
        rule(expire(), '<Filter><Prefix><![CDATA[a<b]]></Prefix></Filter>') +
        '</s3:LifecycleConfiguration>';
      expect(sut(xml).rules[0].filter.prefix).toBe('a<b');
    });
  });

  describe('refused configurations', () => {
    const transition = (days: number | string, storageClass: string) =>
      `<Transition><Days>${days}</Days><StorageClass>${storageClass}</StorageClass></Transition>`;
    const transitionOn = (date: string, storageClass: string) =>
      `<Transition><Date>${date}</Date><StorageClass>${storageClass}</StorageClass></Transition>`;
    const nvt = (days: number, storageClass: string, newer = '') =>
      `<NoncurrentVersionTransition><NoncurrentDays>${days}</NoncurrentDays>${newer}<StorageClass>${storageClass}</StorageClass></NoncurrentVersionTransition>`;
    const nve = (days: number | string, newer?: number) =>
      `<NoncurrentVersionExpiration><NoncurrentDays>${days}</NoncurrentDays>${
        newer === undefined ? '' : `<NewerNoncurrentVersions>${newer}</NewerNoncurrentVersions>`
      }</NoncurrentVersionExpiration>`;
    const abort = (days: number) =>
      `<AbortIncompleteMultipartUpload><DaysAfterInitiation>${days}</DaysAfterInitiation></AbortIncompleteMultipartUpload>`;
    const tagFilter = '<Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter>';
    const andTagFilter =
      '<Filter><And><Prefix>p</Prefix><Tag><Key>k</Key><Value>v</Value></Tag></And></Filter>';
    const sizeFilter = '<Filter><ObjectSizeGreaterThan>100</ObjectSizeGreaterThan></Filter>';
    const andSizeFilter =
      '<Filter><And><Prefix>p</Prefix><ObjectSizeLessThan>100</ObjectSizeLessThan></And></Filter>';
    const legacy = (id: string, prefix: string, body = expire()) =>
      `<Rule><ID>${id}</ID><Prefix>${prefix}</Prefix><Status>Enabled</Status>${body}</Rule>`;

    it.each<[string, string]>([
      ['an empty body', ''],
      ['text that is not XML', 'lifecycle please'],
      ['unclosed elements', '<LifecycleConfiguration><Rule></LifecycleConfiguration>'],
      ['another root element', '<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>'],
      ['two root elements', `${doc(rule(expire()))}<Other/>`],
      [
        'a DOCTYPE',
        `<!DOCTYPE x [<!ENTITY e "logs/">]>${doc(rule(expire(), '<Filter><Prefix>&e;</Prefix></Filter>'))}`,
      ],
      ['an unknown element in a rule', doc(rule(expire() + '<Colour>red</Colour>'))],
      ['an unknown element at the top', doc(rule(expire()), '<Owner>me</Owner>')],
      [
        'text beside elements',
        doc(`<Rule>oops<ID>a</ID><Filter/><Status>Enabled</Status>${expire()}</Rule>`),
      ],
      ['two Expiration elements', doc(rule(expire(1) + expire(2)))],
      ['two ID elements', doc(rule(expire(), undefined, '<ID>a</ID><ID>b</ID>'))],
      ['a missing Status', doc(`<Rule><ID>a</ID><Filter/>${expire()}</Rule>`)],
      ['a Status of "enabled"', doc(`<Rule><ID>a</ID><Filter/><Status>enabled</Status>${expire()}</Rule>`)],
      ['a Status of "invalid"', doc(`<Rule><ID>a</ID><Filter/><Status>invalid</Status>${expire()}</Rule>`)],
      [
        'both Filter and a rule-level Prefix',
        doc(`<Rule><ID>a</ID><Prefix>x</Prefix><Filter/><Status>Enabled</Status>${expire()}</Rule>`),
      ],
      ['neither Filter nor Prefix', doc(`<Rule><ID>a</ID><Status>Enabled</Status>${expire()}</Rule>`)],
      [
        'a Filter with Prefix and Tag but no And',
        doc(rule(expire(), '<Filter><Prefix>a</Prefix><Tag><Key>k</Key><Value>v</Value></Tag></Filter>')),
      ],
      [
        'a Filter with both sizes but no And',
        doc(
          rule(
            expire(),
            '<Filter><ObjectSizeGreaterThan>1</ObjectSizeGreaterThan><ObjectSizeLessThan>9</ObjectSizeLessThan></Filter>',
          ),
        ),
      ],
      [
        'a Filter with two Tags but no And',
        doc(
          rule(
            expire(),
            '<Filter><Tag><Key>a</Key><Value>1</Value></Tag><Tag><Key>b</Key><Value>2</Value></Tag></Filter>',
          ),
        ),
      ],
      [
        'a Filter with And and a Prefix beside it',
        doc(
          rule(
            expire(),
            '<Filter><Prefix>a</Prefix><And><Prefix>b</Prefix><ObjectSizeGreaterThan>1</ObjectSizeGreaterThan></And></Filter>',
          ),
        ),
      ],
      ['an And with only a prefix', doc(rule(expire(), '<Filter><And><Prefix>a</Prefix></And></Filter>'))],
      [
        'an And with a single tag',
        doc(rule(expire(), '<Filter><And><Tag><Key>a</Key><Value>1</Value></Tag></And></Filter>')),
      ],
      ['an empty And', doc(rule(expire(), '<Filter><And></And></Filter>'))],
      ['text in a Filter', doc(rule(expire(), '<Filter>logs/</Filter>'))],
      ['a Tag without Value', doc(rule(expire(), '<Filter><Tag><Key>k</Key></Tag></Filter>'))],
      [
        'a Tag with an empty Key',
        doc(rule(expire(), '<Filter><Tag><Key></Key><Value>v</Value></Tag></Filter>')),
      ],
      [
        'a size that is not an integer',
        doc(rule(expire(), '<Filter><ObjectSizeLessThan>1KB</ObjectSizeLessThan></Filter>')),
      ],
      ['an empty Expiration', doc(rule('<Expiration></Expiration>'))],
      [
        'Expiration with Days and Date',
        doc(rule('<Expiration><Days>1</Days><Date>2026-01-01</Date></Expiration>')),
      ],
      [
        'Expiration with Days and ExpiredObjectDeleteMarker',
        doc(
          rule(
            '<Expiration><Days>1</Days><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>',
          ),
        ),
      ],
      ['Expiration Days of 1.5', doc(rule(expire(1.5 as unknown as number)))],
      ['Expiration Days of "ten"', doc(rule('<Expiration><Days>ten</Days></Expiration>'))],
      ['Expiration Days beyond 32 bits', doc(rule(expire(2_147_483_648)))],
      ['a Date not in ISO 8601 (20200101)', doc(rule('<Expiration><Date>20200101</Date></Expiration>'))],
      ['a Date that does not exist', doc(rule('<Expiration><Date>2026-02-30T00:00:00Z</Date></Expiration>'))],
      [
        'ExpiredObjectDeleteMarker "yes"',
        doc(rule('<Expiration><ExpiredObjectDeleteMarker>yes</ExpiredObjectDeleteMarker></Expiration>')),
      ],
      ['a Transition without StorageClass', doc(rule('<Transition><Days>30</Days></Transition>'))],
      ['a Transition to STANDARD', doc(rule(transition(30, 'STANDARD')))],
      ['a Transition to a made-up class', doc(rule(transition(30, 'COLD')))],
      [
        'a Transition with Days and Date',
        doc(
          rule(
            '<Transition><Days>1</Days><Date>2026-01-01</Date><StorageClass>GLACIER</StorageClass></Transition>',
          ),
        ),
      ],
      [
        'a Transition with neither Days nor Date',
        doc(rule('<Transition><StorageClass>GLACIER</StorageClass></Transition>')),
      ],
      ['a Transition Date not in ISO 8601', doc(rule(transitionOn('20220927', 'GLACIER')))],
      [
        'a NoncurrentVersionExpiration without NoncurrentDays',
        doc(
          rule(
            '<NoncurrentVersionExpiration><NewerNoncurrentVersions>5</NewerNoncurrentVersions></NoncurrentVersionExpiration>',
          ),
        ),
      ],
      [
        'a NoncurrentVersionTransition without StorageClass',
        doc(
          rule(
            '<NoncurrentVersionTransition><NoncurrentDays>5</NoncurrentDays></NoncurrentVersionTransition>',
          ),
        ),
      ],
      [
        'an AbortIncompleteMultipartUpload without DaysAfterInitiation',
        doc(rule('<AbortIncompleteMultipartUpload></AbortIncompleteMultipartUpload>')),
      ],
      ['an ID holding elements', doc(rule(expire(), undefined, '<ID><X/></ID>'))],
    ])('answers MalformedXML to %s', (_name, xml) => {
      const error = refusal(xml);
      expect({ code: error.code, message: error.message }).toEqual({
        code: 'MalformedXML',
        message: MALFORMED_XML_MESSAGE,
      });
      expect(error.detail).toEqual(expect.any(String));
    });

    it.each<[string, string, LifecycleErrorCode, string]>([
      ['no rules', doc(), 'InvalidRequest', 'At least one lifecycle rule must be specified.'],
      [
        '1001 rules',
        doc(...Array.from({ length: 1001 }, (_, i) => rule(expire(), '<Filter/>', `<ID>${i}</ID>`))),
        'InvalidRequest',
        'The number of lifecycle rules must not exceed the allowed limit of 1000 rules.',
      ],
      [
        'an ID of 256 characters',
        doc(rule(expire(), undefined, `<ID>${'a'.repeat(256)}</ID>`)),
        'InvalidArgument',
        'ID length should not exceed allowed limit of 255',
      ],
      [
        'the same ID twice',
        doc(
          rule(expire(1), undefined, '<ID>rule1</ID>'),
          rule(expire(2), '<Filter><Prefix>b/</Prefix></Filter>', '<ID>rule1</ID>'),
        ),
        'InvalidArgument',
        'Rule ID must be unique. Found same ID for more than one rule',
      ],
      [
        'a rule without action',
        doc(rule('')),
        'InvalidRequest',
        'At least one action needs to be specified in a rule',
      ],
      [
        'Expiration Days 0',
        doc(rule(expire(0))),
        'InvalidArgument',
        "'Days' for Expiration action must be a positive integer",
      ],
      [
        'Expiration Days -1',
        doc(rule(expire(-1))),
        'InvalidArgument',
        "'Days' for Expiration action must be a positive integer",
      ],
      [
        'an Expiration Date off midnight',
        doc(rule('<Expiration><Date>2026-01-01T00:00:01Z</Date></Expiration>')),
        'InvalidArgument',
        "'Date' must be at midnight GMT",
      ],
      [
        'an Expiration Date at midnight of another zone',
        doc(rule('<Expiration><Date>2026-01-01T00:00:00+03:00</Date></Expiration>')),
        'InvalidArgument',
        "'Date' must be at midnight GMT",
      ],
      [
        'an Expiration Date a nanosecond past midnight',
        doc(rule('<Expiration><Date>2026-01-01T00:00:00.000000001Z</Date></Expiration>')),
        'InvalidArgument',
        "'Date' must be at midnight GMT",
      ],
      [
        'a Transition Date off midnight',
        doc(rule(transitionOn('2026-01-01T12:00:00Z', 'GLACIER'))),
        'InvalidArgument',
        "'Date' must be at midnight GMT",
      ],
      [
        'a duplicate tag key in And',
        doc(
          rule(
            expire(),
            '<Filter><And><Tag><Key>k</Key><Value>1</Value></Tag><Tag><Key>k</Key><Value>2</Value></Tag></And></Filter>',
          ),
        ),
        'InvalidRequest',
        'Duplicate Tag Keys are not allowed.',
      ],
      [
        'a negative ObjectSizeGreaterThan',
        doc(rule(expire(), '<Filter><ObjectSizeGreaterThan>-1</ObjectSizeGreaterThan></Filter>')),
        'InvalidRequest',
        "'ObjectSizeGreaterThan' should be between 0 and 1099511627776000.",
      ],
      [
        'an ObjectSizeLessThan of 0',
        doc(rule(expire(), '<Filter><ObjectSizeLessThan>0</ObjectSizeLessThan></Filter>')),
        'InvalidRequest',
        "'ObjectSizeLessThan' should be between 1 and 1099511627776000.",
      ],
      [
        'an ObjectSizeLessThan beyond 1000 TiB',
        doc(rule(expire(), '<Filter><ObjectSizeLessThan>1099511627776001</ObjectSizeLessThan></Filter>')),
        'InvalidRequest',
        "'ObjectSizeLessThan' should be between 1 and 1099511627776000.",
      ],
      [
        'an And whose ObjectSizeGreaterThan is not below ObjectSizeLessThan',
        doc(
          rule(
            expire(),
            '<Filter><And><ObjectSizeGreaterThan>1000</ObjectSizeGreaterThan><ObjectSizeLessThan>1000</ObjectSizeLessThan></And></Filter>',
          ),
        ),
        'InvalidRequest',
        "'ObjectSizeLessThan' has to be a value greater than 'ObjectSizeGreaterThan'.",
      ],
      [
        'ExpiredObjectDeleteMarker with a Tag filter',
        doc(
          rule(
            '<Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>',
            tagFilter,
          ),
        ),
        'InvalidRequest',
        'ExpiredObjectDeleteMarker cannot be specified with Tags.',
      ],
      [
        'ExpiredObjectDeleteMarker with tags in And',
        doc(
          rule(
            '<Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>',
            andTagFilter,
          ),
        ),
        'InvalidRequest',
        'ExpiredObjectDeleteMarker cannot be specified with Tags.',
      ],
      [
        'ExpiredObjectDeleteMarker (even false) with a size filter',
        doc(
          rule(
            '<Expiration><ExpiredObjectDeleteMarker>false</ExpiredObjectDeleteMarker></Expiration>',
            andSizeFilter,
          ),
        ),
        'InvalidRequest',
        'ExpiredObjectDeleteMarker cannot be specified with Object Size.',
      ],
      [
        'AbortIncompleteMultipartUpload with a Tag filter',
        doc(rule(abort(7), tagFilter)),
        'InvalidRequest',
        'AbortIncompleteMultipartUpload cannot be specified with Tags.',
      ],
      [
        'AbortIncompleteMultipartUpload with tags in And',
        doc(rule(abort(7), andTagFilter)),
        'InvalidRequest',
        'AbortIncompleteMultipartUpload cannot be specified with Tags.',
      ],
      [
        'AbortIncompleteMultipartUpload with a size filter',
        doc(rule(abort(7), sizeFilter)),
        'InvalidRequest',
        'AbortIncompleteMultipartUpload cannot be specified with Object Size.',
      ],
      [
        'DaysAfterInitiation 0',
        doc(rule(abort(0))),
        'InvalidArgument',
        "'DaysAfterInitiation' for AbortIncompleteMultipartUpload action must be a positive integer",
      ],
      [
        'NoncurrentDays 0',
        doc(rule(nve(0))),
        'InvalidArgument',
        "'NoncurrentDays' for NoncurrentVersionExpiration action must be a positive integer",
      ],
      [
        'NewerNoncurrentVersions 0',
        doc(rule(nve(1, 0))),
        'InvalidArgument',
        "'NewerNoncurrentVersions' must be a positive integer",
      ],
      [
        'NewerNoncurrentVersions 101',
        doc(rule(nve(1, 101))),
        'InvalidArgument',
        "'NewerNoncurrentVersions' must not exceed 100",
      ],
      [
        'NewerNoncurrentVersions 0 in a NoncurrentVersionTransition',
        doc(rule(nvt(1, 'GLACIER', '<NewerNoncurrentVersions>0</NewerNoncurrentVersions>'))),
        'InvalidArgument',
        "'NewerNoncurrentVersions' must be a positive integer",
      ],
      [
        'a negative Transition Days',
        doc(rule(transition(-1, 'GLACIER'))),
        'InvalidArgument',
        "'Days' in Transition action must be nonnegative",
      ],
      [
        'a Transition to STANDARD_IA before 30 days',
        doc(rule(transition(29, 'STANDARD_IA'))),
        'InvalidArgument',
        "'Days' in Transition action must be greater than or equal to 30 for storageClass 'STANDARD_IA'",
      ],
      [
        'a Transition to ONEZONE_IA at 0 days',
        doc(rule(transition(0, 'ONEZONE_IA'))),
        'InvalidArgument',
        "'Days' in Transition action must be greater than or equal to 30 for storageClass 'ONEZONE_IA'",
      ],
      [
        'a NoncurrentVersionTransition to STANDARD_IA before 30 days',
        doc(rule(nvt(10, 'STANDARD_IA'))),
        'InvalidArgument',
        "'NoncurrentDays' in NoncurrentVersionTransition action must be greater than or equal to 30 for storageClass 'STANDARD_IA'",
      ],
      [
        'a negative NoncurrentVersionTransition NoncurrentDays',
        doc(rule(nvt(-1, 'GLACIER'))),
        'InvalidArgument',
        "'NoncurrentDays' in NoncurrentVersionTransition action must be nonnegative",
      ],
      [
        'two Transitions to one class',
        doc(rule(transition(30, 'GLACIER') + transition(60, 'GLACIER'))),
        'InvalidRequest',
        "'StorageClass' must be different for 'Transition' actions in same 'Rule' with filter '(prefix=logs/)'",
      ],
      [
        'two NoncurrentVersionTransitions to one class',
        doc(rule(nvt(30, 'GLACIER') + nvt(60, 'GLACIER'))),
        'InvalidRequest',
        "'StorageClass' must be different for 'NoncurrentVersionTransition' actions in same 'Rule' with filter '(prefix=logs/)'",
      ],
      [
        'Transitions mixing Days and Date',
        doc(rule(transition(30, 'STANDARD_IA') + transitionOn('2027-01-01', 'GLACIER'))),
        'InvalidRequest',
        "Found mixed 'Date' and 'Days' based Transition actions in lifecycle rule for filter '(prefix=logs/)'",
      ],
      [
        'an Expiration Date beside a Transition by Days',
        doc(rule('<Expiration><Date>2030-01-01</Date></Expiration>' + transition(30, 'GLACIER'))),
        'InvalidRequest',
        "Found mixed 'Date' and 'Days' based Expiration and Transition actions in lifecycle rule for filter '(prefix=logs/)'",
      ],
      [
        'a colder class transitioned before a warmer one',
        doc(rule(transition(60, 'STANDARD_IA') + transition(30, 'GLACIER'))),
        'InvalidArgument',
        "'Days' in the Transition action for StorageClass 'GLACIER' for filter '(prefix=logs/)' must be greater than 'Days' in the Transition action for StorageClass 'STANDARD_IA' for filter '(prefix=logs/)'",
      ],
      [
        'two classes transitioned the same day',
        doc(rule(transition(30, 'STANDARD_IA') + transition(30, 'DEEP_ARCHIVE'), '<Filter/>')),
        'InvalidArgument',
        "'Days' in the Transition action for StorageClass 'DEEP_ARCHIVE' for filter '(prefix=)' must be greater than 'Days' in the Transition action for StorageClass 'STANDARD_IA' for filter '(prefix=)'",
      ],
      [
        'an Expiration not after the Transition',
        doc(rule(expire(30) + transition(30, 'GLACIER'), '<Filter/>')),
        'InvalidArgument',
        "'Days' in the Expiration action for filter '(prefix=)' must be greater than 'Days' in the Transition action",
      ],
      [
        'an Expiration Date not after the Transition Date',
        doc(
          rule(
            '<Expiration><Date>2027-01-01</Date></Expiration>' + transitionOn('2027-01-01', 'GLACIER'),
            andTagFilter,
          ),
        ),
        'InvalidArgument',
        "'Date' in the Expiration action for filter '(prefix=p and tag={key=k, value=v})' must be greater than 'Date' in the Transition action",
      ],
      [
        'noncurrent transitions out of waterfall order',
        doc(rule(nvt(90, 'GLACIER_IR') + nvt(60, 'DEEP_ARCHIVE'), sizeFilter)),
        'InvalidArgument',
        "'NoncurrentDays' in the NoncurrentVersionTransition action for StorageClass 'DEEP_ARCHIVE' for filter '(objectsizegreaterthan=100)' must be greater than 'NoncurrentDays' in the NoncurrentVersionTransition action for StorageClass 'GLACIER_IR' for filter '(objectsizegreaterthan=100)'",
      ],
      [
        'a NoncurrentVersionExpiration not after the NoncurrentVersionTransition',
        doc(rule(nve(30) + nvt(30, 'GLACIER'))),
        'InvalidArgument',
        "'NoncurrentDays' in the NoncurrentVersionExpiration action for filter '(prefix=logs/)' must be greater than 'NoncurrentDays' in the NoncurrentVersionTransition action",
      ],
      [
        'a rule-level Prefix after a Filter rule (V2)',
        doc(rule(expire()), legacy('b', 'b/')),
        'InvalidRequest',
        'Base level prefix cannot be used in Lifecycle V2, prefixes are only supported in the Filter.',
      ],
      [
        'a Filter after a rule-level Prefix rule (V1)',
        doc(legacy('a', 'a/'), rule(expire())),
        'InvalidRequest',
        'Filter element can only be used in Lifecycle V2.',
      ],
      [
        'NewerNoncurrentVersions in V1',
        doc(legacy('a', 'a/', nve(1, 5))),
        'InvalidRequest',
        'NewerNoncurrentVersions element can only be used in Lifecycle V2.',
      ],
      [
        'overlapping V1 prefixes for one action',
        doc(legacy('all', ''), legacy('a', 'a', expire(2))),
        'InvalidRequest',
        "Found overlapping prefixes '' and 'a' for same action type 'Expiration'",
      ],
      [
        'equal V1 prefixes for one action',
        doc(legacy('x', 'logs/', abort(1)), legacy('y', 'logs/', abort(2))),
        'InvalidRequest',
        "Found overlapping prefixes 'logs/' and 'logs/' for same action type 'AbortIncompleteMultipartUpload'",
      ],
    ])('answers %s with %s', (_name, xml, code, message) => {
      const error = refusal(xml);
      expect({ code: error.code, message: error.message }).toEqual({ code, message });
    });

    it('refuses a transition minimum-size header S3 does not define', () => {
      const error = refusal(doc(rule(expire())), { transitionDefaultMinimumObjectSize: 'tiny' });
      expect({ code: error.code, message: error.message }).toEqual({
        code: 'InvalidRequest',
        message: 'Invalid TransitionDefaultMinimumObjectSize found',
      });
    });

    it('answers structure before values: a schema fault in a later rule wins over a value fault in an earlier one', () => {
      expect(
        refusal(doc(rule(expire(0)), rule(expire(), '<Filter><Bogus/></Filter>', '<ID>b</ID>'))).code,
      ).toBe('MalformedXML');
    });
  });

  describe('V1 and V2 side by side', () => {
    it('accepts V1 rules whose prefixes overlap for different actions, and V2 rules that overlap', () => {
      const v1 = doc(
        '<Rule><ID>e</ID><Prefix></Prefix><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>',
        '<Rule><ID>n</ID><Prefix>a/</Prefix><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>',
      );
      expect(sut(v1).rules).toHaveLength(2);
      const v2 = doc(
        rule(expire(365), '<Filter/>', '<ID>all</ID>'),
        rule(expire(1), '<Filter><Prefix>a</Prefix></Filter>', '<ID>a</ID>'),
      );
      expect(sut(v2).rules).toHaveLength(2);
    });
  });

  describe('debug relaxation', () => {
    it('drops only the 30-day minimum of the infrequent-access classes', () => {
      const options = { relaxTransitionMinimumDays: true };
      const [parsed] = sut(
        doc(
          rule(
            '<Transition><Days>1</Days><StorageClass>STANDARD_IA</StorageClass></Transition>' +
              '<NoncurrentVersionTransition><NoncurrentDays>1</NoncurrentDays><StorageClass>ONEZONE_IA</StorageClass></NoncurrentVersionTransition>',
          ),
        ),
        options,
      ).rules;
      expect(parsed.transitions).toEqual([{ days: 1, storageClass: 'STANDARD_IA' }]);
      expect(refusal(doc(rule(expire(0))), options).code).toBe('InvalidArgument');
    });
  });
});
