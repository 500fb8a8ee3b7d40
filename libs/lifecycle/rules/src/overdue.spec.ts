import { LifecycleAction } from './evaluate-object';
import { isOverdue, objectExpiration } from './overdue';
import { parseLifecycleXml } from './parse-lifecycle';
import { AWS_TIMING, debugTiming } from './timing';

const at = (iso: string) => Date.parse(iso);
const HOUR = 3_600_000;

describe(isOverdue.name, () => {
  const sut = isOverdue;
  const action = (kind: LifecycleAction['kind']): LifecycleAction => ({
    kind,
    versionId: 'v1',
    ruleId: 'r',
    reason: 'expiration-days',
    dueAt: new Date('2026-01-10T00:00:00Z'),
  });

  it('is true only once the action is more than the grace period late', () => {
    expect(sut(action('delete-version'), at('2026-01-11T00:00:00Z'), 24 * HOUR)).toBe(false);
    expect(sut(action('delete-version'), at('2026-01-11T00:00:00.001Z'), 24 * HOUR)).toBe(true);
    expect(sut(action('expire-current'), new Date('2026-02-01T00:00:00Z'), 24 * HOUR)).toBe(true);
    expect(sut(action('transition'), at('2026-01-09T00:00:00Z'), 0)).toBe(false);
  });

  it('never counts delete-marker removals, whose due time is only a lower bound', () => {
    expect(sut(action('remove-delete-marker'), at('2030-01-01T00:00:00Z'), 0)).toBe(false);
  });
});

describe(objectExpiration.name, () => {
  const sut = objectExpiration;
  const config = parseLifecycleXml(
    '<LifecycleConfiguration>' +
      '<Rule><ID>year</ID><Filter/><Status>Enabled</Status><Expiration><Days>365</Days></Expiration></Rule>' +
      '<Rule><ID>tmp</ID><Filter><Tag><Key>tmp</Key><Value>1</Value></Tag></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>' +
      '<Rule><ID>off</ID><Filter/><Status>Disabled</Status><Expiration><Days>1</Days></Expiration></Rule>' +
      '<Rule><ID>markers</ID><Filter/><Status>Enabled</Status><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration></Rule>' +
      '<Rule><ID>dated</ID><Filter><Prefix>old/</Prefix></Filter><Status>Enabled</Status><Expiration><Date>2026-03-01</Date></Expiration></Rule>' +
      '</LifecycleConfiguration>',
  );
  const object = { key: 'a.txt', size: 10, lastModified: at('2026-01-15T10:30:00Z') };

  it('gives the expiry date and rule of the x-amz-expiration header: the earliest enabled expiration', () => {
    expect(sut(config, object, AWS_TIMING)).toEqual({
      ruleId: 'year',
      expiresAt: new Date('2027-01-16T00:00:00Z'),
    });
    expect(sut(config, { ...object, tags: { tmp: '1' } }, AWS_TIMING)).toEqual({
      ruleId: 'tmp',
      expiresAt: new Date('2026-01-17T00:00:00Z'),
    });
    expect(sut(config, { ...object, key: 'old/a' }, AWS_TIMING)).toEqual({
      ruleId: 'dated',
      expiresAt: new Date('2026-03-01T00:00:00Z'),
    });
    expect(sut(config, object, debugTiming(1000))).toEqual({
      ruleId: 'year',
      expiresAt: new Date(object.lastModified + 365_000),
    });
  });

  it('is undefined when no expiration applies', () => {
    expect(sut(config.rules.slice(2, 4), object, AWS_TIMING)).toBeUndefined();
  });
});
