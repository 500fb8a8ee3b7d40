import { LifecycleFilter } from './configuration';
import { hasSizePredicate, matchesFilter } from './filter';
import { canTransition } from './storage-classes';

describe(matchesFilter.name, () => {
  const sut = matchesFilter;
  const object = { key: 'logs/2026/a.gz', size: 1000, tags: { env: 'prod', team: 'core', empty: '' } };

  it.each<[string, LifecycleFilter, boolean]>([
    ['the empty filter (whole bucket)', { tags: [] }, true],
    ['the empty prefix', { prefix: '', tags: [] }, true],
    ['a matching prefix', { prefix: 'logs/', tags: [] }, true],
    ['a prefix that is not at the start', { prefix: '2026/', tags: [] }, false],
    ['a prefix matched case-sensitively', { prefix: 'Logs/', tags: [] }, false],
    ['a tag present with that value', { tags: [{ key: 'env', value: 'prod' }] }, true],
    ['a tag present with another value', { tags: [{ key: 'env', value: 'dev' }] }, false],
    ['a tag key matched case-sensitively', { tags: [{ key: 'ENV', value: 'prod' }] }, false],
    ['a tag with an empty value', { tags: [{ key: 'empty', value: '' }] }, true],
    ['a tag the object lacks', { tags: [{ key: 'owner', value: '' }] }, false],
    [
      'all tags present (And)',
      {
        tags: [
          { key: 'env', value: 'prod' },
          { key: 'team', value: 'core' },
        ],
      },
      true,
    ],
    [
      'one of the And tags wrong',
      {
        tags: [
          { key: 'env', value: 'prod' },
          { key: 'team', value: 'web' },
        ],
      },
      false,
    ],
    ['size strictly greater', { tags: [], objectSizeGreaterThan: 999 }, true],
    ['size equal to ObjectSizeGreaterThan', { tags: [], objectSizeGreaterThan: 1000 }, false],
    ['size strictly less', { tags: [], objectSizeLessThan: 1001 }, true],
    ['size equal to ObjectSizeLessThan', { tags: [], objectSizeLessThan: 1000 }, false],
    ['a size window around it', { tags: [], objectSizeGreaterThan: 10, objectSizeLessThan: 2000 }, true],
    [
      'prefix, tag and size all met',
      { prefix: 'logs/', tags: [{ key: 'team', value: 'core' }], objectSizeGreaterThan: 0 },
      true,
    ],
    [
      'prefix and tag met, size not',
      { prefix: 'logs/', tags: [{ key: 'team', value: 'core' }], objectSizeLessThan: 10 },
      false,
    ],
  ])('%s → %s', (_name, filter, expected) => {
    expect(sut(filter, object)).toBe(expected);
  });

  it('does not read inherited properties as tags', () => {
    expect(sut({ tags: [{ key: 'toString', value: '' }] }, { key: 'a', size: 1, tags: {} })).toBe(false);
    expect(sut({ tags: [{ key: 'a', value: 'b' }] }, { key: 'a', size: 1 })).toBe(false);
  });

  it('knows which filters name a size', () => {
    expect(hasSizePredicate({ tags: [], objectSizeLessThan: 5 })).toBe(true);
    expect(hasSizePredicate({ tags: [], prefix: 'a' })).toBe(false);
  });
});

describe(canTransition.name, () => {
  const sut = canTransition;

  it('follows the waterfall: colder only, ONEZONE_IA not to GLACIER_IR, DEEP_ARCHIVE nowhere', () => {
    expect(sut(undefined, 'STANDARD_IA')).toBe(true);
    expect(sut('STANDARD', 'DEEP_ARCHIVE')).toBe(true);
    expect(sut('STANDARD_IA', 'STANDARD_IA')).toBe(false);
    expect(sut('STANDARD_IA', 'INTELLIGENT_TIERING')).toBe(true);
    expect(sut('INTELLIGENT_TIERING', 'STANDARD_IA')).toBe(false);
    expect(sut('ONEZONE_IA', 'GLACIER_IR')).toBe(false);
    expect(sut('ONEZONE_IA', 'GLACIER')).toBe(true);
    expect(sut('GLACIER', 'GLACIER_IR')).toBe(false);
    expect(sut('GLACIER', 'DEEP_ARCHIVE')).toBe(true);
    expect(sut('DEEP_ARCHIVE', 'GLACIER')).toBe(false);
    expect(sut('SOMETHING_ELSE', 'GLACIER')).toBe(false);
    expect(sut('constructor', 'GLACIER')).toBe(false);
  });
});
