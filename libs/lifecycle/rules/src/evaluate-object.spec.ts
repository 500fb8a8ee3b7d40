import { LifecycleConfiguration } from './configuration';
import {
  evaluateObject,
  LifecycleAction,
  nextDueAt,
  ObjectVersion,
  SCANNER_KEPT_VERSIONS,
  VersionGroup,
} from './evaluate-object';
import { parseLifecycleXml } from './parse-lifecycle';
import { AWS_TIMING, debugTiming } from './timing';

const at = (iso: string) => Date.parse(iso);
const DAY = 86_400_000;
const MIB = 1 << 20;

/** A configuration from rule XML; the 30-day IA minimum is relaxed so that tests can use short days. */
function lifecycle(rules: string[], minimumSize?: string): LifecycleConfiguration {
  return parseLifecycleXml(`<LifecycleConfiguration>${rules.join('')}</LifecycleConfiguration>`, {
    relaxTransitionMinimumDays: true,
    transitionDefaultMinimumObjectSize: minimumSize,
  });
}

const rule = (id: string, actions: string, filter = '<Filter/>', status = 'Enabled') =>
  `<Rule><ID>${id}</ID>${filter}<Status>${status}</Status>${actions}</Rule>`;
const expireDays = (days: number) => `<Expiration><Days>${days}</Days></Expiration>`;
const expireOn = (date: string) => `<Expiration><Date>${date}</Date></Expiration>`;
const eodm = (value = true) =>
  `<Expiration><ExpiredObjectDeleteMarker>${value}</ExpiredObjectDeleteMarker></Expiration>`;
const nve = (days: number, newer?: number) =>
  `<NoncurrentVersionExpiration><NoncurrentDays>${days}</NoncurrentDays>${
    newer === undefined ? '' : `<NewerNoncurrentVersions>${newer}</NewerNoncurrentVersions>`
  }</NoncurrentVersionExpiration>`;
const transition = (days: number, storageClass: string) =>
  `<Transition><Days>${days}</Days><StorageClass>${storageClass}</StorageClass></Transition>`;
const nvt = (days: number, storageClass: string, newer?: number) =>
  `<NoncurrentVersionTransition><NoncurrentDays>${days}</NoncurrentDays>${
    newer === undefined ? '' : `<NewerNoncurrentVersions>${newer}</NewerNoncurrentVersions>`
  }<StorageClass>${storageClass}</StorageClass></NoncurrentVersionTransition>`;

function version(
  versionId: string,
  lastModified: string | number,
  more: Partial<ObjectVersion> = {},
): ObjectVersion {
  const ms = typeof lastModified === 'number' ? lastModified : at(lastModified);
  return { versionId, isLatest: false, isDeleteMarker: false, size: MIB, lastModified: ms, ...more };
}
const current = (id: string, t: string | number, more: Partial<ObjectVersion> = {}) =>
  version(id, t, { isLatest: true, ...more });
const marker = (id: string, t: string | number, more: Partial<ObjectVersion> = {}) =>
  version(id, t, { isDeleteMarker: true, size: 0, ...more });

function group(versions: ObjectVersion[], more: Partial<VersionGroup> = {}): VersionGroup {
  return { key: 'logs/app.log', versioning: 'Enabled', versions, keptAll: true, ...more };
}

const brief = (actions: LifecycleAction[]) =>
  actions.map((a) => [a.versionId, a.kind, a.ruleId, ...(a.storageClass ? [a.storageClass] : [])]);

describe(evaluateObject.name, () => {
  const sut = evaluateObject;

  describe('Expiration of the current version', () => {
    const config = lifecycle([rule('exp', expireDays(3))]);
    const objects = group([current('v1', '2026-01-15T10:30:00Z')]);

    it('is due at the first midnight UTC after creation plus Days (AWS timing)', () => {
      expect(sut(config, objects, at('2026-01-18T23:59:59.999Z'), AWS_TIMING)).toEqual([]);
      expect(sut(config, objects, at('2026-01-19T00:00:00Z'), AWS_TIMING)).toEqual([
        {
          kind: 'expire-current',
          versionId: 'v1',
          ruleId: 'exp',
          reason: 'expiration-days',
          dueAt: new Date('2026-01-19T00:00:00Z'),
        },
      ]);
    });

    it('is due after Days × dayMs of plain elapsed time under the debug timing', () => {
      const timing = debugTiming(10_000);
      const created = at('2026-01-15T10:30:00Z');
      expect(sut(config, objects, created + 29_999, timing)).toEqual([]);
      expect(brief(sut(config, objects, created + 30_000, timing))).toEqual([
        ['v1', 'expire-current', 'exp'],
      ]);
    });

    it('with a Date, applies from that date on, to objects created after it too', () => {
      const dated = lifecycle([rule('dated', expireOn('2026-06-01'))]);
      const old = group([current('old', '2026-01-01T00:00:00Z')]);
      expect(sut(dated, old, at('2026-05-31T23:59:59Z'), AWS_TIMING)).toEqual([]);
      expect(sut(dated, old, at('2026-06-01T00:00:00Z'), AWS_TIMING)).toEqual([
        expect.objectContaining({
          kind: 'expire-current',
          reason: 'expiration-date',
          dueAt: new Date('2026-06-01T00:00:00Z'),
        }),
      ]);
      const young = group([current('young', '2026-07-01T09:00:00Z')]);
      expect(brief(sut(dated, young, at('2026-07-01T09:00:01Z'), debugTiming(1000)))).toEqual([
        ['young', 'expire-current', 'dated'],
      ]);
    });

    it('ignores disabled rules and rules whose filter the object does not meet', () => {
      const rules = lifecycle([
        rule('off', expireDays(1), '<Filter/>', 'Disabled'),
        rule('other', expireDays(1), '<Filter><Prefix>images/</Prefix></Filter>'),
      ]);
      expect(sut(rules, objects, at('2030-01-01T00:00:00Z'), AWS_TIMING)).toEqual([]);
    });

    it('expires the only version of an object in an unversioned bucket', () => {
      const plain = group([current('null', '2026-01-01T00:00:00Z')], { versioning: 'Unversioned' });
      expect(brief(sut(config, plain, at('2026-02-01T00:00:00Z'), AWS_TIMING))).toEqual([
        ['null', 'expire-current', 'exp'],
      ]);
    });

    it('does nothing to a current delete marker that hides versions, nor to those versions', () => {
      const hidden = group([
        marker('dm', '2026-01-02T00:00:00Z', { isLatest: true }),
        version('v1', '2026-01-01T00:00:00Z'),
      ]);
      expect(sut(config, hidden, at('2027-01-01T00:00:00Z'), AWS_TIMING)).toEqual([]);
    });

    it('reports the shortest of overlapping expirations, the first rule on a tie', () => {
      const rules = lifecycle([
        rule('year', expireDays(365)),
        rule('week', expireDays(7), '<Filter><Prefix>logs/</Prefix></Filter>'),
        rule('week-too', expireDays(7), '<Filter><Prefix>logs/app</Prefix></Filter>'),
      ]);
      expect(brief(sut(rules, objects, at('2027-06-01T00:00:00Z'), AWS_TIMING))).toEqual([
        ['v1', 'expire-current', 'week'],
      ]);
    });

    it('takes the rules alone as well as a whole configuration', () => {
      expect(sut(config.rules, objects, at('2026-02-01T00:00:00Z'), AWS_TIMING)).toEqual(
        sut(config, objects, at('2026-02-01T00:00:00Z'), AWS_TIMING),
      );
    });
  });

  describe('delete markers', () => {
    const now = at('2026-06-01T00:00:00Z');

    it('removes a current marker with nothing beneath it under ExpiredObjectDeleteMarker', () => {
      const config = lifecycle([rule('eodm', eodm())]);
      const lone = group([marker('dm', '2026-05-30T10:00:00Z', { isLatest: true })]);
      expect(sut(config, lone, now, AWS_TIMING)).toEqual([
        {
          kind: 'remove-delete-marker',
          versionId: 'dm',
          ruleId: 'eodm',
          reason: 'expired-object-delete-marker',
          dueAt: new Date('2026-05-31T00:00:00Z'),
        },
      ]);
    });

    it('never removes a marker that still hides a version, even one expiring in the same pass', () => {
      const config = lifecycle([rule('eodm', eodm()), rule('old', nve(1))]);
      const hiding = group([
        marker('dm', '2026-01-02T00:00:00Z', { isLatest: true }),
        version('v1', '2026-01-01T00:00:00Z'),
      ]);
      expect(brief(sut(config, hiding, now, AWS_TIMING))).toEqual([['v1', 'delete-version', 'old']]);
      // Next pass, once v1 is gone, the marker is alone and goes.
      const alone = group([marker('dm', '2026-01-02T00:00:00Z', { isLatest: true })]);
      expect(brief(sut(config, alone, now, AWS_TIMING))).toEqual([['dm', 'remove-delete-marker', 'eodm']]);
    });

    it('never removes a marker when the scanner left versions out of the group', () => {
      const config = lifecycle([rule('eodm', eodm())]);
      const capped = group([marker('dm', '2026-01-02T00:00:00Z', { isLatest: true })], { keptAll: false });
      expect(sut(config, capped, now, AWS_TIMING)).toEqual([]);
    });

    it('takes no action for ExpiredObjectDeleteMarker false, nor for a noncurrent marker', () => {
      expect(
        sut(
          lifecycle([rule('no', eodm(false))]),
          group([marker('dm', 0, { isLatest: true })]),
          now,
          AWS_TIMING,
        ),
      ).toEqual([]);
      const noncurrentMarker = group([
        current('v2', '2026-01-03T00:00:00Z'),
        marker('dm', '2026-01-02T00:00:00Z'),
      ]);
      expect(sut(lifecycle([rule('eodm', eodm())]), noncurrentMarker, now, AWS_TIMING)).toEqual([]);
    });

    it('removes a lone marker under Expiration Days once the marker itself is that old', () => {
      const config = lifecycle([rule('days', expireDays(5))]);
      const lone = group([marker('dm', '2026-03-01T10:00:00Z', { isLatest: true })]);
      expect(sut(config, lone, at('2026-03-06T23:59:59Z'), AWS_TIMING)).toEqual([]);
      expect(sut(config, lone, at('2026-03-07T00:00:00Z'), AWS_TIMING)).toEqual([
        expect.objectContaining({ kind: 'remove-delete-marker', ruleId: 'days', reason: 'expiration-days' }),
      ]);
    });

    it('removes a lone marker under an Expiration Date once the date has come', () => {
      const config = lifecycle([rule('dated', expireOn('2026-04-01'))]);
      const lone = group([marker('dm', '2026-03-01T10:00:00Z', { isLatest: true })]);
      expect(sut(config, lone, at('2026-03-31T00:00:00Z'), AWS_TIMING)).toEqual([]);
      expect(brief(sut(config, lone, at('2026-04-01T00:00:00Z'), AWS_TIMING))).toEqual([
        ['dm', 'remove-delete-marker', 'dated'],
      ]);
    });

    it('reads a marker as having no tags and size 0', () => {
      const lone = group([marker('dm', '2026-01-01T00:00:00Z', { isLatest: true })]);
      const tagged = lifecycle([
        rule('tagged', expireDays(1), '<Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter>'),
      ]);
      expect(sut(tagged, lone, now, AWS_TIMING)).toEqual([]);
      const bigOnly = lifecycle([
        rule('big', expireDays(1), '<Filter><ObjectSizeGreaterThan>0</ObjectSizeGreaterThan></Filter>'),
      ]);
      expect(sut(bigOnly, lone, now, AWS_TIMING)).toEqual([]);
      const tiny = lifecycle([
        rule('tiny', expireDays(1), '<Filter><ObjectSizeLessThan>1</ObjectSizeLessThan></Filter>'),
      ]);
      expect(brief(sut(tiny, lone, now, AWS_TIMING))).toEqual([['dm', 'remove-delete-marker', 'tiny']]);
    });
  });

  describe('noncurrent versions', () => {
    it('count their days from when the next newer version was written (AWS example)', () => {
      const config = lifecycle([rule('nc', nve(3))]);
      const versions = group([current('v2', '2014-01-15T10:30:00Z'), version('v1', '2013-06-01T00:00:00Z')]);
      expect(sut(config, versions, at('2014-01-18T23:59:59Z'), AWS_TIMING)).toEqual([]);
      expect(sut(config, versions, at('2014-01-19T00:00:00Z'), AWS_TIMING)).toEqual([
        {
          kind: 'delete-version',
          versionId: 'v1',
          ruleId: 'nc',
          reason: 'noncurrent-version-expiration',
          dueAt: new Date('2014-01-19T00:00:00Z'),
        },
      ]);
    });

    it('use becameNoncurrentAt when the scanner gives it', () => {
      const config = lifecycle([rule('nc', nve(3))]);
      const versions = group([
        current('v2', '2014-01-15T10:30:00Z'),
        version('v1', '2013-06-01T00:00:00Z', { becameNoncurrentAt: at('2014-01-01T00:00:00Z') }),
      ]);
      expect(sut(config, versions, at('2014-01-04T00:00:00Z'), AWS_TIMING)).toEqual([
        expect.objectContaining({ versionId: 'v1', dueAt: new Date('2014-01-04T00:00:00Z') }),
      ]);
    });

    it('never expire the current version, however old, because of a noncurrent rule', () => {
      const config = lifecycle([rule('nc', nve(1)), rule('nct', nvt(1, 'GLACIER'))]);
      const versions = group([current('v3', '2020-01-01T00:00:00Z'), version('v2', '2019-01-01T00:00:00Z')]);
      expect(brief(sut(config, versions, at('2030-01-01T00:00:00Z'), AWS_TIMING))).toEqual([
        ['v2', 'delete-version', 'nc'],
      ]);
      expect(
        sut(config, group([current('only', '2000-01-01T00:00:00Z')]), at('2030-01-01T00:00:00Z'), AWS_TIMING),
      ).toEqual([]);
    });

    it('delete a noncurrent delete marker but never transition one', () => {
      const config = lifecycle([rule('nc', nve(10)), rule('nct', nvt(1, 'GLACIER'))]);
      const versions = group([
        current('v2', '2026-01-10T00:00:00Z'),
        marker('dm', '2026-01-05T00:00:00Z'),
        version('v1', '2026-01-01T00:00:00Z'),
      ]);
      expect(brief(sut(config, versions, at('2026-01-12T00:00:00Z'), AWS_TIMING))).toEqual([
        ['v1', 'transition', 'nct', 'GLACIER'],
      ]);
      expect(brief(sut(config, versions, at('2026-02-01T00:00:00Z'), AWS_TIMING))).toEqual([
        ['dm', 'delete-version', 'nc'],
        ['v1', 'delete-version', 'nc'],
      ]);
    });

    it('keep the N newest noncurrent versions whatever their age with NewerNoncurrentVersions', () => {
      const config = lifecycle([rule('keep2', nve(1, 2))]);
      const versions = group([
        current('v6', '2026-01-06T00:00:00Z'),
        version('v5', '2026-01-05T00:00:00Z'),
        version('v4', '2026-01-04T00:00:00Z'),
        version('v3', '2026-01-03T00:00:00Z'),
        version('v2', '2026-01-02T00:00:00Z'),
        version('v1', '2026-01-01T00:00:00Z'),
      ]);
      expect(brief(sut(config, versions, at('2027-01-01T00:00:00Z'), AWS_TIMING))).toEqual([
        ['v3', 'delete-version', 'keep2'],
        ['v2', 'delete-version', 'keep2'],
        ['v1', 'delete-version', 'keep2'],
      ]);
    });

    it('delete, beyond the N newest, only versions noncurrent for NoncurrentDays', () => {
      const config = lifecycle([rule('keep1', nve(10, 1))]);
      const versions = group([
        current('v5', '2026-03-01T00:00:00Z'),
        version('v4', '2026-02-28T00:00:00Z'),
        version('v3', '2026-02-25T00:00:00Z'),
        version('v2', '2026-02-01T00:00:00Z'),
        version('v1', '2026-01-01T00:00:00Z'),
      ]);
      // v4 is kept by the count; v3 became noncurrent on 02-28 and v2 on 02-25: too recently.
      expect(brief(sut(config, versions, at('2026-03-02T00:00:00Z'), AWS_TIMING))).toEqual([
        ['v1', 'delete-version', 'keep1'],
      ]);
      expect(brief(sut(config, versions, at('2026-03-07T00:00:00Z'), AWS_TIMING))).toEqual([
        ['v2', 'delete-version', 'keep1'],
        ['v1', 'delete-version', 'keep1'],
      ]);
    });

    it("keep five of nine noncurrent versions (s3-tests' test_lifecycle_expiration_newer_noncurrent)", () => {
      const config = lifecycle([rule('r', nve(1, 5))]);
      const start = at('2026-01-01T00:00:00Z');
      const versions = group(
        Array.from({ length: 10 }, (_, i) =>
          (i === 0 ? current : version)(`v${10 - i}`, start + (10 - i) * 60_000),
        ),
      );
      const actions = sut(config, versions, start + 3 * DAY, AWS_TIMING);
      expect(actions.map((a) => a.versionId)).toEqual(['v4', 'v3', 'v2', 'v1']);
    });

    it('are due, when kept by the count, from the moment enough newer versions existed', () => {
      const config = lifecycle([rule('keep1', nve(1, 1))]);
      const versions = group([
        current('v3', '2026-03-01T12:00:00Z'),
        version('v2', '2026-01-02T00:00:00Z'),
        version('v1', '2026-01-01T00:00:00Z'),
      ]);
      expect(sut(config, versions, at('2026-03-10T00:00:00Z'), AWS_TIMING)).toEqual([
        expect.objectContaining({ versionId: 'v1', dueAt: new Date('2026-03-01T12:00:00Z') }),
      ]);
    });

    it("read each version's own tags and size", () => {
      const config = lifecycle([
        rule(
          'tmp',
          nve(1),
          '<Filter><And><Prefix>logs/</Prefix><Tag><Key>tmp</Key><Value>yes</Value></Tag></And></Filter>',
        ),
        rule('huge', nve(1), '<Filter><ObjectSizeGreaterThan>1048576</ObjectSizeGreaterThan></Filter>'),
      ]);
      const versions = group([
        current('v4', '2026-01-04T00:00:00Z', { tags: { tmp: 'yes' } }),
        version('v3', '2026-01-03T00:00:00Z', { tags: { tmp: 'yes', other: 'x' } }),
        version('v2', '2026-01-02T00:00:00Z', { tags: { tmp: 'no' } }),
        version('v1', '2026-01-01T00:00:00Z', { size: MIB + 1 }),
      ]);
      expect(brief(sut(config, versions, at('2026-02-01T00:00:00Z'), AWS_TIMING))).toEqual([
        ['v3', 'delete-version', 'tmp'],
        ['v1', 'delete-version', 'huge'],
      ]);
    });
  });

  describe("the scanner's window of the newest versions", () => {
    const start = at('2025-01-01T00:00:00Z');
    /** The scanner's group: the newest 100 noncurrent versions, then the current one kept beside them. */
    const capped = (currentVersion: ObjectVersion) =>
      group(
        [
          ...Array.from({ length: SCANNER_KEPT_VERSIONS }, (_, i) =>
            version(`n${i}`, start + (SCANNER_KEPT_VERSIONS - i) * 60_000),
          ),
          currentVersion,
        ],
        { keptAll: false },
      );
    const now = at('2030-01-01T00:00:00Z');

    it('never mistakes the last kept version for the current one', () => {
      const config = lifecycle([
        rule(
          'exp',
          expireDays(1) + transition(0, 'GLACIER'),
          '<Filter><ObjectSizeLessThan>1</ObjectSizeLessThan></Filter>',
        ),
      ]);
      const versions = capped(current('cur', start + 1000 * 60_000, { size: 0 }));
      expect(brief(sut(config, versions, now, AWS_TIMING))).toEqual([
        ['cur', 'transition', 'exp', 'GLACIER'],
      ]);
      const expiring = lifecycle([rule('exp', expireDays(1))]);
      expect(brief(sut(expiring, versions, now, AWS_TIMING))).toEqual([['cur', 'expire-current', 'exp']]);
    });

    it('counts NewerNoncurrentVersions within the kept versions', () => {
      const versions = capped(current('cur', start + 1000 * 60_000));
      expect(brief(sut(lifecycle([rule('keep99', nve(1, 99))]), versions, now, AWS_TIMING))).toEqual([
        ['n99', 'delete-version', 'keep99'],
      ]);
      expect(sut(lifecycle([rule('keep100', nve(1, 100))]), versions, now, AWS_TIMING)).toEqual([]);
    });

    it('never removes a current delete marker kept beside a window', () => {
      const versions = capped(marker('dm', start + 1000 * 60_000, { isLatest: true }));
      const actions = sut(lifecycle([rule('eodm', eodm()), rule('nc', nve(1))]), versions, now, AWS_TIMING);
      expect(actions).toHaveLength(SCANNER_KEPT_VERSIONS);
      expect(actions.every((a) => a.kind === 'delete-version')).toBe(true);
    });

    it('without a current version, acts on no current version and not on the newest noncurrent one', () => {
      const config = lifecycle([rule('exp', expireDays(1) + nve(1))]);
      const headless = group([version('n0', '2026-01-02T00:00:00Z'), version('n1', '2026-01-01T00:00:00Z')], {
        keptAll: false,
      });
      expect(brief(sut(config, headless, now, AWS_TIMING))).toEqual([['n1', 'delete-version', 'exp']]);
      const told = group(
        [version('n0', '2026-01-02T00:00:00Z', { becameNoncurrentAt: at('2026-01-03T00:00:00Z') })],
        {
          keptAll: false,
        },
      );
      expect(brief(sut(config, told, now, AWS_TIMING))).toEqual([['n0', 'delete-version', 'exp']]);
    });

    it('leaves alone a group with two current versions', () => {
      const config = lifecycle([rule('exp', expireDays(1) + nve(1))]);
      const confused = group([
        current('a', '2026-01-02T00:00:00Z'),
        current('b', '2026-01-01T00:00:00Z'),
        version('c', 0),
      ]);
      expect(sut(config, confused, now, AWS_TIMING)).toEqual([]);
    });

    it('counts noncurrent time from the next kept newer version when versions are missing between', () => {
      const config = lifecycle([rule('nc', nve(10))]);
      // v1's true successor (left out) came on 01-02; the next kept one came on 01-20.
      const gappy = group(
        [
          current('v9', '2026-01-30T00:00:00Z'),
          version('v5', '2026-01-20T00:00:00Z'),
          version('v1', '2026-01-01T00:00:00Z'),
        ],
        {
          keptAll: false,
        },
      );
      expect(sut(config, gappy, at('2026-01-29T00:00:00Z'), AWS_TIMING)).toEqual([]);
      expect(brief(sut(config, gappy, at('2026-01-30T00:00:00Z'), AWS_TIMING))).toEqual([
        ['v1', 'delete-version', 'nc'],
      ]);
    });
  });

  describe('transitions', () => {
    const created = '2026-01-15T10:30:00Z';

    it('move the current version after Days, rounded to midnight', () => {
      const config = lifecycle([rule('cold', transition(30, 'GLACIER'))]);
      const objects = group([current('v1', created)]);
      expect(sut(config, objects, at('2026-02-14T23:59:59Z'), AWS_TIMING)).toEqual([]);
      expect(sut(config, objects, at('2026-02-15T00:00:00Z'), AWS_TIMING)).toEqual([
        {
          kind: 'transition',
          versionId: 'v1',
          ruleId: 'cold',
          reason: 'transition-days',
          storageClass: 'GLACIER',
          dueAt: new Date('2026-02-15T00:00:00Z'),
        },
      ]);
    });

    it('move the current version from a Date on', () => {
      const config = lifecycle([
        rule(
          'dated',
          '<Transition><Date>2026-03-01</Date><StorageClass>DEEP_ARCHIVE</StorageClass></Transition>',
        ),
      ]);
      const objects = group([current('v1', created)]);
      expect(sut(config, objects, at('2026-02-28T00:00:00Z'), AWS_TIMING)).toEqual([]);
      expect(sut(config, objects, at('2026-03-01T00:00:00Z'), AWS_TIMING)).toEqual([
        expect.objectContaining({
          kind: 'transition',
          reason: 'transition-date',
          storageClass: 'DEEP_ARCHIVE',
        }),
      ]);
    });

    it('go only down the waterfall', () => {
      const config = lifecycle([
        rule('ia', transition(30, 'STANDARD_IA')),
        rule('deep', transition(60, 'DEEP_ARCHIVE'), '<Filter><Prefix>x/</Prefix></Filter>'),
      ]);
      const now = at('2027-01-01T00:00:00Z');
      expect(
        sut(config, group([current('v1', created, { storageClass: 'STANDARD_IA' })]), now, AWS_TIMING),
      ).toEqual([]);
      expect(
        sut(config, group([current('v1', created, { storageClass: 'GLACIER' })]), now, AWS_TIMING),
      ).toEqual([]);
      expect(
        brief(
          sut(
            config,
            group([current('v1', created, { storageClass: 'GLACIER' })], { key: 'x/1' }),
            now,
            AWS_TIMING,
          ),
        ),
      ).toEqual([['v1', 'transition', 'deep', 'DEEP_ARCHIVE']]);
    });

    it('leave objects under 128 KiB where they are by default', () => {
      const rules = [
        rule('ia', transition(1, 'STANDARD_IA')),
        rule('glacier', transition(1, 'GLACIER'), '<Filter><Prefix>g/</Prefix></Filter>'),
      ];
      const small = (key: string) => group([current('v1', created, { size: 128 * 1024 - 1 })], { key });
      const now = at('2027-01-01T00:00:00Z');
      const strict = lifecycle(rules);
      expect(sut(strict, small('a'), now, AWS_TIMING)).toEqual([]);
      expect(sut(strict, small('g/a'), now, AWS_TIMING)).toEqual([]);
      expect(
        sut(strict, group([current('v1', created, { size: 128 * 1024 })]), now, AWS_TIMING),
      ).toHaveLength(1);
      const byClass = lifecycle(rules, 'varies_by_storage_class');
      expect(sut(byClass, small('a'), now, AWS_TIMING)).toEqual([]);
      expect(brief(sut(byClass, small('g/a'), now, AWS_TIMING))).toEqual([
        ['v1', 'transition', 'glacier', 'GLACIER'],
      ]);
    });

    it('follow a size filter of their own rule over the 128 KiB default', () => {
      const config = lifecycle([
        rule(
          'tiny',
          transition(1, 'STANDARD_IA'),
          '<Filter><ObjectSizeGreaterThan>0</ObjectSizeGreaterThan></Filter>',
        ),
      ]);
      const tiny = group([current('v1', created, { size: 10 })]);
      expect(brief(sut(config, tiny, at('2027-01-01T00:00:00Z'), AWS_TIMING))).toEqual([
        ['v1', 'transition', 'tiny', 'STANDARD_IA'],
      ]);
    });

    it('move noncurrent versions after NoncurrentDays, keeping the N newest with NewerNoncurrentVersions', () => {
      const config = lifecycle([rule('nct', nvt(5, 'GLACIER_IR', 1))]);
      const versions = group([
        current('v3', '2026-01-20T00:00:00Z'),
        version('v2', '2026-01-10T00:00:00Z'),
        version('v1', '2026-01-01T00:00:00Z'),
      ]);
      expect(sut(config, versions, at('2026-01-14T23:59:59Z'), AWS_TIMING)).toEqual([]);
      expect(sut(config, versions, at('2026-02-01T00:00:00Z'), AWS_TIMING)).toEqual([
        {
          kind: 'transition',
          versionId: 'v1',
          ruleId: 'nct',
          reason: 'noncurrent-version-transition',
          storageClass: 'GLACIER_IR',
          dueAt: new Date('2026-01-20T00:00:00Z'),
        },
      ]);
    });

    it.each([
      ['GLACIER over STANDARD_IA', 'STANDARD_IA', 'GLACIER', 'GLACIER'],
      ['INTELLIGENT_TIERING over GLACIER_IR', 'GLACIER_IR', 'INTELLIGENT_TIERING', 'INTELLIGENT_TIERING'],
      ['INTELLIGENT_TIERING over ONEZONE_IA', 'INTELLIGENT_TIERING', 'ONEZONE_IA', 'INTELLIGENT_TIERING'],
      ['DEEP_ARCHIVE over GLACIER', 'DEEP_ARCHIVE', 'GLACIER', 'DEEP_ARCHIVE'],
      ['GLACIER over INTELLIGENT_TIERING', 'INTELLIGENT_TIERING', 'GLACIER', 'GLACIER'],
    ])('prefer the cheaper class when several are due: %s', (_name, first, second, expected) => {
      const config = lifecycle([rule('a', transition(1, first)), rule('b', transition(2, second))]);
      const [action] = sut(config, group([current('v1', created)]), at('2027-01-01T00:00:00Z'), AWS_TIMING);
      expect(action.storageClass).toBe(expected);
    });

    it('take the next step of a rule from where the object already is', () => {
      const config = lifecycle([rule('steps', transition(30, 'STANDARD_IA') + transition(90, 'GLACIER'))]);
      const inIa = (now: string) =>
        sut(config, group([current('v1', created, { storageClass: 'STANDARD_IA' })]), at(now), AWS_TIMING);
      expect(inIa('2026-03-01T00:00:00Z')).toEqual([]);
      expect(brief(inIa('2026-05-01T00:00:00Z'))).toEqual([['v1', 'transition', 'steps', 'GLACIER']]);
    });
  });

  describe('conflicts', () => {
    const config = lifecycle([rule('exp', expireDays(60)), rule('cold', transition(30, 'GLACIER'))]);
    const now = at('2027-01-01T00:00:00Z');
    const created = '2026-01-01T00:00:00Z';

    it('in a versioned bucket, a transition goes before the creation of a delete marker', () => {
      expect(brief(sut(config, group([current('v1', created)]), now, AWS_TIMING))).toEqual([
        ['v1', 'transition', 'cold', 'GLACIER'],
      ]);
      // Once in GLACIER, the next pass expires it.
      expect(
        brief(sut(config, group([current('v1', created, { storageClass: 'GLACIER' })]), now, AWS_TIMING)),
      ).toEqual([['v1', 'expire-current', 'exp']]);
    });

    it('in an unversioned bucket, expiration (a permanent delete) beats a transition', () => {
      expect(
        brief(sut(config, group([current('null', created)], { versioning: 'Unversioned' }), now, AWS_TIMING)),
      ).toEqual([['null', 'expire-current', 'exp']]);
    });

    it('in a suspended bucket, expiring the null version deletes it, so it beats a transition', () => {
      const suspended = { versioning: 'Suspended' as const };
      expect(brief(sut(config, group([current('null', created)], suspended), now, AWS_TIMING))).toEqual([
        ['null', 'expire-current', 'exp'],
      ]);
      expect(brief(sut(config, group([current('v7', created)], suspended), now, AWS_TIMING))).toEqual([
        ['v7', 'transition', 'cold', 'GLACIER'],
      ]);
    });

    it('an expiration due before any transition is taken', () => {
      const early = lifecycle([rule('exp', expireDays(60)), rule('cold', transition(90, 'GLACIER'))]);
      expect(
        brief(sut(early, group([current('v1', created)]), at('2026-03-15T00:00:00Z'), AWS_TIMING)),
      ).toEqual([['v1', 'expire-current', 'exp']]);
    });

    it('a permanent delete of a noncurrent version beats its transition', () => {
      const both = lifecycle([rule('nct', nvt(1, 'GLACIER')), rule('nc', nve(2))]);
      const versions = group([current('v2', '2026-01-10T00:00:00Z'), version('v1', '2026-01-01T00:00:00Z')]);
      expect(brief(sut(both, versions, at('2026-01-11T00:00:00Z'), AWS_TIMING))).toEqual([
        ['v1', 'transition', 'nct', 'GLACIER'],
      ]);
      expect(brief(sut(both, versions, at('2026-01-12T00:00:00Z'), AWS_TIMING))).toEqual([
        ['v1', 'delete-version', 'nc'],
      ]);
    });
  });
});

describe(nextDueAt.name, () => {
  const sut = nextDueAt;

  it('tells when each version becomes eligible, past or future', () => {
    const config = lifecycle([rule('exp', expireDays(30) + transition(10, 'GLACIER') + nve(5))]);
    const versions = group([current('v2', '2026-01-15T10:30:00Z'), version('v1', '2026-01-01T00:00:00Z')]);
    expect(sut(config, versions, at('2026-01-16T00:00:00Z'), AWS_TIMING)).toEqual([
      expect.objectContaining({
        versionId: 'v2',
        kind: 'transition',
        dueAt: new Date('2026-01-26T00:00:00Z'),
      }),
      expect.objectContaining({
        versionId: 'v1',
        kind: 'delete-version',
        dueAt: new Date('2026-01-21T00:00:00Z'),
      }),
    ]);
  });

  it('leaves out versions waiting on something other than time', () => {
    const config = lifecycle([rule('keep2', nve(1, 2) + eodm())]);
    const versions = group([
      marker('dm', '2026-01-03T00:00:00Z', { isLatest: true }),
      version('v2', '2026-01-02T00:00:00Z'),
      version('v1', '2026-01-01T00:00:00Z'),
    ]);
    expect(sut(config, versions, at('2026-02-01T00:00:00Z'), AWS_TIMING)).toEqual([]);
  });

  it('agrees with evaluateObject: what is due now is what evaluateObject does', () => {
    const config = lifecycle([rule('nc', nve(3)), rule('exp', expireDays(7))]);
    const versions = group([current('v2', '2026-01-10T00:00:00Z'), version('v1', '2026-01-01T00:00:00Z')]);
    for (let day = 10; day <= 20; day++) {
      const now = at('2026-01-01T00:00:00Z') + day * DAY;
      const due = sut(config, versions, now, AWS_TIMING).filter((a) => a.dueAt.getTime() <= now);
      expect(evaluateObject(config, versions, now, AWS_TIMING)).toEqual(due);
    }
  });
});
