import { FolderCandidate } from './folder-candidate';
import { MessageContractError } from './message-contract';
import { UploadCandidate } from './upload-candidate';
import { UsageDelta, usageDeltaMessage, usageDeltaOfMessage } from './usage-delta';
import { VersionCandidate } from './version-candidate';

const bucketId = '2f1c8a52-5a43-4c1e-9a57-0c2d3e4f5a6b';

const version = (): VersionCandidate => ({
  bucketId,
  bucket: 'photos',
  key: 'images/pets/cat.png',
  parent: 'images/pets/',
  name: 'cat.png',
  versions: [
    { versionId: 'v-1', rules: [{ ruleId: 'expire-old', action: 'NoncurrentVersionExpiration' }] },
    {
      versionId: 'v-2',
      rules: [
        { ruleId: 'expire-old', action: 'NoncurrentVersionExpiration' },
        { ruleId: 'cold', action: 'NoncurrentVersionTransition' },
      ],
    },
  ],
  staleNulls: false,
  scannedAt: new Date('2026-01-02T03:04:05.678Z'),
  sourceHost: 'cass-3.dc1',
});

/** Re-encodes the wire JSON of `message` with `patch` applied, to build invalid messages. */
const tamper = (message: string, patch: Record<string, unknown>) =>
  JSON.stringify({ ...JSON.parse(message), ...patch });

describe(VersionCandidate.name, () => {
  const sut = VersionCandidate;

  it('round-trips, with a version field and a Date back', () => {
    const message = sut.toMessage(version());
    expect(JSON.parse(message)).toMatchObject({ v: 2, staleNulls: false, scannedAt: '2026-01-02T03:04:05.678Z' });
    expect(sut.fromMessage(message)).toEqual(version());
    expect(sut.fromMessage(Buffer.from(message))).toEqual(version());
  });

  it('carries stale null rows, with or without eligible versions', () => {
    const both = { ...version(), staleNulls: true };
    const only = { ...version(), versions: [], staleNulls: true };
    expect(sut.fromMessage(sut.toMessage(both))).toEqual(both);
    expect(sut.fromMessage(sut.toMessage(only))).toEqual(only);
    const { staleNulls: _, ...unset } = version();
    expect(JSON.parse(sut.toMessage(unset)).staleNulls).toBe(false);
  });

  it('still reads version 1 (no staleNulls: read as false), with its own rules', () => {
    const v1 = tamper(sut.toMessage(version()), { v: 1, staleNulls: undefined });
    expect(sut.fromMessage(v1)).toEqual(version());
    expect(() => sut.fromMessage(tamper(v1, { versions: [] }))).toThrow(/versions: must list at least one version/);
    expect(() => sut.fromMessage(tamper(v1, { staleNulls: true }))).toThrow(/Unrecognized key\(s\) in object: 'staleNulls'/);
  });

  it('round-trips a key at the root and a key ending in /', () => {
    const root = { ...version(), key: 'top', parent: '', name: 'top' };
    const dir = { ...version(), key: 'a/b/', parent: 'a/b/', name: '' };
    expect(sut.fromMessage(sut.toMessage(root))).toEqual(root);
    expect(sut.fromMessage(sut.toMessage(dir))).toEqual(dir);
  });

  it('rejects unknown versions precisely', () => {
    const message = tamper(sut.toMessage(version()), { v: 3 });
    expect(() => sut.fromMessage(message)).toThrow(
      new MessageContractError('VersionCandidate', 'unsupported version 3 (this build reads 1, 2)', 'v'),
    );
    expect(() => sut.fromMessage(tamper(message, { v: undefined }))).toThrow(
      /v: missing or non-integer version/,
    );
    expect(() => sut.fromMessage(tamper(message, { v: '1' }))).toThrow(
      /v: missing or non-integer version \(got "1"\)/,
    );
  });

  it('rejects what is not a JSON object', () => {
    expect(() => sut.fromMessage('{')).toThrow('VersionCandidate message rejected: not valid JSON');
    expect(() => sut.fromMessage('[1]')).toThrow('not a JSON object');
    expect(() => sut.fromMessage('null')).toThrow('not a JSON object');
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['bucketId', { bucketId: 'nope' }, /bucketId: must be a uuid/],
    ['bucket', { bucket: 'Bad_Name' }, /bucket: must be a valid S3 bucket name/],
    ['key', { key: '' }, /key: must not be empty/],
    ['key vs parent+name', { key: 'images/pets/dog.png' }, /key: must equal parent \+ name/],
    ['parent', { parent: 'images/pets', key: 'images/petscat.png' }, /parent: must be '' or end with '\/'/],
    ['name', { name: 'x/cat.png', key: 'images/pets/x/cat.png' }, /name: must not contain '\/'/],
    ['versions', { versions: [] }, /versions: must list at least one version unless staleNulls is true/],
    ['staleNulls', { staleNulls: 'yes' }, /staleNulls: Expected boolean/],
    ['missing staleNulls', { staleNulls: undefined }, /staleNulls: Required/],
    ['rules', { versions: [{ versionId: 'a', rules: [] }] }, /versions.0.rules: must name at least one rule/],
    [
      'action',
      { versions: [{ versionId: 'a', rules: [{ ruleId: 'r', action: 'AbortIncompleteMultipartUpload' }] }] },
      /versions.0.rules.0.action: Invalid enum value/,
    ],
    [
      'duplicate version',
      {
        versions: [
          { versionId: 'a', rules: [{ ruleId: 'r', action: 'Expiration' }] },
          { versionId: 'a', rules: [{ ruleId: 'r', action: 'Expiration' }] },
        ],
      },
      /versions: must not repeat a versionId/,
    ],
    ['scannedAt', { scannedAt: '2026-01-02 03:04' }, /scannedAt: must be an ISO-8601 UTC timestamp/],
    ['sourceHost', { sourceHost: 'a host' }, /sourceHost: must not contain whitespace/],
    ['unknown field', { extra: 1 }, /Unrecognized key\(s\) in object: 'extra'/],
    ['missing field', { sourceHost: undefined }, /sourceHost: Required/],
  ])('rejects a bad %s', (_what, patch, error) => {
    const message = tamper(sut.toMessage(version()), patch);
    expect(() => sut.fromMessage(message)).toThrow(MessageContractError);
    expect(() => sut.fromMessage(message)).toThrow(error);
  });

  it('caps the versions at the 100 newest plus the current one', () => {
    const many = Array.from({ length: 102 }, (_, i) => ({
      versionId: `v${i}`,
      rules: [{ ruleId: 'r', action: 'Expiration' as const }],
    }));
    expect(() => sut.toMessage({ ...version(), versions: many.slice(0, 101) })).not.toThrow();
    expect(() => sut.toMessage({ ...version(), versions: many })).toThrow(/versions: must list at most 101/);
  });

  it('refuses to write an invalid candidate', () => {
    expect(() => sut.toMessage({ ...version(), scannedAt: new Date(NaN) })).toThrow(/scannedAt/);
    expect(() => sut.toMessage({ ...version(), key: 'other' })).toThrow(/key: must equal parent \+ name/);
  });
});

describe(UploadCandidate.name, () => {
  const sut = UploadCandidate;
  const upload = (): UploadCandidate => ({
    bucketId,
    bucket: 'photos',
    key: 'big.iso',
    uploadId: 'a1b2c3',
    ruleId: 'abort-7d',
  });

  it('round-trips', () => {
    const message = sut.toMessage(upload());
    expect(JSON.parse(message).v).toBe(1);
    expect(sut.fromMessage(message)).toEqual(upload());
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['version', { v: 7 }, /v: unsupported version 7/],
    ['uploadId', { uploadId: '' }, /uploadId: must not be empty/],
    ['ruleId', { ruleId: 'x'.repeat(256) }, /ruleId: must be at most 255 characters/],
    ['key', { key: 'k'.repeat(1025) }, /key: must be at most 1024 UTF-8 bytes/],
    ['bucketId', { bucketId: 3 }, /bucketId: Expected string, received number/],
  ])('rejects a bad %s', (_what, patch, error) => {
    expect(() => sut.fromMessage(tamper(sut.toMessage(upload()), patch))).toThrow(error);
  });
});

describe(FolderCandidate.name, () => {
  const sut = FolderCandidate;
  const folder = (): FolderCandidate => ({
    bucketId,
    bucket: 'photos',
    parent: 'images/',
    name: 'pets/',
    kind: 'version',
  });

  it('round-trips every kind, at the root too', () => {
    for (const kind of ['object', 'version', 'upload'] as const) {
      const f = { ...folder(), kind };
      expect(sut.fromMessage(sut.toMessage(f))).toEqual(f);
    }
    const root = { ...folder(), parent: '' };
    expect(sut.fromMessage(sut.toMessage(root))).toEqual(root);
  });

  it('writes v3, which carries the empty segment of keys like a//b; v1 stays readable', () => {
    const empty = { ...folder(), parent: 'a/', name: '/' };
    expect(JSON.parse(sut.toMessage(empty)).v).toBe(3);
    expect(sut.fromMessage(sut.toMessage(empty))).toEqual(empty);
    const v1 = JSON.stringify({ v: 1, bucketId, bucket: 'photos', parent: 'images/', name: 'pets/', kind: 'object' });
    expect(sut.fromMessage(v1)).toEqual({ ...folder(), kind: 'object' });
    expect(() => sut.fromMessage(JSON.stringify({ ...JSON.parse(v1), name: '/' }))).toThrow(/name: must be one path segment followed by '\/'/);
  });

  it('writes v3 with the generation of the scan that published it; v2 (no generation) stays readable', () => {
    const withGeneration = { ...folder(), generation: 42 };
    expect(JSON.parse(sut.toMessage(withGeneration))).toMatchObject({ v: 3, generation: 42 });
    expect(sut.fromMessage(sut.toMessage(withGeneration))).toEqual(withGeneration);
    const v2 = JSON.stringify({ v: 2, bucketId, bucket: 'photos', parent: 'a/', name: '/', kind: 'object' });
    const back = sut.fromMessage(v2);
    expect(back).toEqual({ ...folder(), parent: 'a/', name: '/', kind: 'object' });
    expect('generation' in back).toBe(false);
    expect(() => sut.fromMessage(JSON.stringify({ ...JSON.parse(v2), generation: 42 }))).toThrow(/generation/);
    expect(() => sut.fromMessage(tamper(sut.toMessage(folder()), { generation: -1 }))).toThrow(/generation/);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['version', { v: 0 }, /v: unsupported version 0 \(this build reads 1, 2, 3\)/],
    ['kind', { kind: 'bucket' }, /kind: Invalid enum value/],
    ['name without its slash', { name: 'pets' }, /name: must be one path segment \(possibly empty\) followed by '\/'/],
    ['name of two segments', { name: 'a/b/' }, /name: must be one path segment/],
    ['name of an empty and another segment', { name: '/b/' }, /name: must be one path segment/],
    ['parent', { parent: 'images' }, /parent: must be '' or end with '\/'/],
  ])('rejects a bad %s', (_what, patch, error) => {
    expect(() => sut.fromMessage(tamper(sut.toMessage(folder()), patch))).toThrow(error);
  });
});

describe(UsageDelta.name, () => {
  const sut = UsageDelta;
  const delta = (): UsageDelta => ({
    bucketId,
    bucket: 'photos',
    kind: 'remove',
    bytes: -5_000_000_000,
    objects: -1,
    at: new Date('2026-03-01T00:00:00.000Z'),
    source: 'scheduler',
    sourceHost: 'scheduler-7f9c-x2',
    eventId: '0b7f3c1e-8d2a-4c55-9e61-3f1a2b3c4d5e',
  });

  it('round-trips negative and positive deltas of every kind and source', () => {
    const message = sut.toMessage(delta());
    expect(JSON.parse(message)).toMatchObject({ v: 2, kind: 'remove', bytes: -5_000_000_000, at: '2026-03-01T00:00:00.000Z' });
    expect(sut.fromMessage(message)).toEqual(delta());
    expect(sut.fromMessage(Buffer.from(message))).toEqual(delta());
    for (const kind of ['store', 'copy'] as const) {
      const plus: UsageDelta = { ...delta(), kind, bytes: 123, objects: 1, source: 'gateway' };
      expect(sut.fromMessage(sut.toMessage(plus))).toEqual(plus);
    }
  });

  it('leaves out an unknown object count, and reads it back as absent', () => {
    const { objects: _, ...unknownCount } = delta();
    const message = sut.toMessage(unknownCount);
    expect(JSON.parse(message)).not.toHaveProperty('objects');
    const back = sut.fromMessage(message);
    expect(back).toEqual(unknownCount);
    expect('objects' in back).toBe(false);
  });

  it('accepts a zero-byte delta of any kind (an empty object)', () => {
    for (const kind of ['store', 'remove', 'copy'] as const) {
      const zero = { ...delta(), kind, bytes: 0, objects: kind === 'remove' ? -1 : 1 };
      expect(sut.fromMessage(sut.toMessage(zero))).toEqual(zero);
    }
  });

  it('refuses to write a delta whose sign contradicts its kind', () => {
    expect(() => sut.toMessage({ ...delta(), kind: 'store', bytes: -1 })).toThrow(
      new MessageContractError('UsageDelta', 'must not be negative for a store', 'bytes'),
    );
    expect(() => sut.toMessage({ ...delta(), kind: 'remove', bytes: 1 })).toThrow(/bytes: must not be positive for a remove/);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['version 1 (never produced)', { v: 1 }, /UsageDelta message rejected: v: unsupported version 1 \(this build reads 2\)/],
    ['version', { v: 3 }, /UsageDelta message rejected: v: unsupported version 3/],
    ['bucketId', { bucketId: 'photos' }, /bucketId: must be a uuid/],
    ['bucket', { bucket: 'Photos!' }, /bucket: must be a valid S3 bucket name/],
    ['kind', { kind: 'transition' }, /kind: Invalid enum value/],
    ['bytes', { bytes: 1.5 }, /bytes: must be an integer/],
    ['huge bytes', { bytes: -(2 ** 60) }, /bytes: must be a safe integer/],
    ['sign of bytes', { bytes: 10 }, /bytes: must not be positive for a remove/],
    ['objects', { objects: '1' }, /objects: Expected number, received string/],
    ['at', { at: 'yesterday' }, /at: must be an ISO-8601 UTC timestamp/],
    ['source', { source: 'scanner' }, /source: Invalid enum value/],
    ['sourceHost', { sourceHost: 'two words' }, /sourceHost: must not contain whitespace/],
    ['missing sourceHost', { sourceHost: undefined }, /sourceHost: Required/],
    ['eventId', { eventId: '' }, /eventId: must not be empty/],
    ['unknown field', { storageClass: 'GLACIER' }, /Unrecognized key\(s\) in object: 'storageClass'/],
  ])('rejects a bad %s', (_what, patch, error) => {
    expect(() => sut.fromMessage(tamper(sut.toMessage(delta()), patch))).toThrow(error);
  });

  describe(usageDeltaMessage.name, () => {
    it('writes exactly what toMessage writes, for every kind, source and with or without an object count', () => {
      const { objects: _, ...noCount } = delta();
      const variants: UsageDelta[] = [
        delta(),
        noCount,
        { ...delta(), kind: 'store', bytes: 0, objects: 0, source: 'gateway' },
        { ...delta(), kind: 'copy', bytes: Number.MAX_SAFE_INTEGER, bucket: 'a.b-c', sourceHost: 'x'.repeat(255) },
        { ...delta(), bucketId: bucketId.toUpperCase(), eventId: 'e'.repeat(256), at: new Date(0) },
      ];
      for (const d of variants) {
        expect(usageDeltaMessage(d)).toBe(sut.toMessage(d));
        expect(sut.fromMessage(usageDeltaMessage(d))).toEqual(d);
      }
    });

    it.each<[string, Partial<Record<keyof UsageDelta, unknown>>]>([
      ['bucketId', { bucketId: 'photos' }],
      ['bucket', { bucket: 'Photos' }],
      ['kind', { kind: 'transition' }],
      ['fractional bytes', { bytes: 1.5 }],
      ['unsafe bytes', { bytes: -(2 ** 60) }],
      ['sign of bytes', { bytes: 1 }],
      ['objects', { objects: '1' }],
      ['at', { at: new Date(NaN) }],
      ['source', { source: 'scanner' }],
      ['sourceHost', { sourceHost: 'two words' }],
      ['long sourceHost', { sourceHost: 'x'.repeat(256) }],
      ['eventId', { eventId: '' }],
      ['long eventId', { eventId: 'e'.repeat(257) }],
    ])('refuses a bad %s with the contract\'s own error', (_what, patch) => {
      const bad = { ...delta(), ...patch } as UsageDelta;
      let expected: unknown;
      try {
        sut.toMessage(bad);
      } catch (e) {
        expected = e;
      }
      expect(expected).toBeInstanceOf(MessageContractError);
      expect(() => usageDeltaMessage(bad)).toThrow(expected as Error);
    });
  });
  describe(usageDeltaOfMessage.name, () => {
    const read = (m: string | Buffer | Uint8Array) => {
      try {
        return { delta: sut.fromMessage(m) };
      } catch (e) {
        return { error: e };
      }
    };
    const readFast = (m: string | Buffer | Uint8Array) => {
      try {
        return { delta: usageDeltaOfMessage(m) };
      } catch (e) {
        return { error: e };
      }
    };

    it('reads what fromMessage reads, from a string, a Buffer and a Uint8Array view', () => {
      const { objects: _, ...noCount } = delta();
      const variants: UsageDelta[] = [
        delta(),
        noCount,
        { ...delta(), kind: 'store', bytes: 0, objects: 0, source: 'gateway' },
        { ...delta(), kind: 'copy', bytes: Number.MAX_SAFE_INTEGER, bucket: 'a.b-c', sourceHost: 'x'.repeat(255) },
        { ...delta(), bucketId: bucketId.toUpperCase(), eventId: 'é'.repeat(256), at: new Date(0) },
      ];
      for (const d of variants) {
        const m = sut.toMessage(d);
        const bytes = Buffer.from(`xx${m}`);
        for (const raw of [m, Buffer.from(m), new Uint8Array(bytes.buffer, bytes.byteOffset + 2, bytes.length - 2)]) {
          const back = usageDeltaOfMessage(raw);
          expect(back).toEqual(d);
          expect('objects' in back).toBe('objects' in d);
        }
      }
    });

    it('reads an ordinary message without the schema pass (the point of the fast reader)', () => {
      const spy = jest.spyOn(sut, 'fromMessage');
      try {
        for (const at of [new Date('2028-02-29T23:59:59.999Z'), new Date('2026-12-31T00:00:00.000Z'), new Date(0)])
          expect(usageDeltaOfMessage(sut.toMessage({ ...delta(), at })).at).toEqual(at);
        expect(spy).not.toHaveBeenCalled();
      } finally {
        spy.mockRestore();
      }
    });

    it.each<[string, Record<string, unknown> | string]>([
      ['version 1', { v: 1 }],
      ['missing version', { v: undefined }],
      ['bucketId', { bucketId: 'photos' }],
      ['bucket', { bucket: 'Photos!' }],
      ['kind', { kind: 'transition' }],
      ['fractional bytes', { bytes: 1.5 }],
      ['huge bytes', { bytes: -(2 ** 60) }],
      ['sign of bytes', { bytes: 10 }],
      ['objects as text', { objects: '1' }],
      ['objects null', { objects: null }],
      ['at without milliseconds', { at: '2026-03-01T00:00:00Z' }],
      ['at with microseconds', { at: '2026-03-01T00:00:00.000001Z' }],
      ['at with an offset', { at: '2026-03-01T01:00:00.000+01:00' }],
      ['at on a day that does not exist', { at: '2026-02-30T00:00:00.000Z' }],
      ['at on 29 February of a common year', { at: '2026-02-29T00:00:00.000Z' }],
      ['at on 29 February of a leap year', { at: '2028-02-29T23:59:59.999Z' }],
      ['at on 30 February of a leap year', { at: '2028-02-30T00:00:00.000Z' }],
      ['at on 29 February of a century', { at: '2100-02-29T00:00:00.000Z' }],
      ['at on 29 February of a 400th year', { at: '2000-02-29T00:00:00.000Z' }],
      ['at on 31 April', { at: '2026-04-31T00:00:00.000Z' }],
      ['at on the last day of the year', { at: '2026-12-31T23:59:59.999Z' }],
      ['at in month 13', { at: '2026-13-01T00:00:00.000Z' }],
      ['at in month 0', { at: '2026-00-10T00:00:00.000Z' }],
      ['at on day 0', { at: '2026-01-00T00:00:00.000Z' }],
      ['at at hour 24', { at: '2026-01-01T24:00:00.000Z' }],
      ['at at minute 60', { at: '2026-01-01T00:60:00.000Z' }],
      ['at on a leap second', { at: '2016-12-31T23:59:60.000Z' }],
      ['at in year 50', { at: '0050-06-01T00:00:00.000Z' }],
      ['at in year 0', { at: '0000-01-01T00:00:00.000Z' }],
      ['at in year 9999', { at: '9999-12-31T23:59:59.999Z' }],
      ['at as a number', { at: 1_700_000_000_000 }],
      ['source', { source: 'scanner' }],
      ['sourceHost', { sourceHost: 'two words' }],
      ['eventId', { eventId: '' }],
      ['long eventId', { eventId: 'e'.repeat(257) }],
      ['unknown field', { storageClass: 'GLACIER' }],
      ['__proto__ field', '{"v":2,"__proto__":{"x":1}}'],
      ['not JSON', 'nope'],
      ['an array', '[2]'],
      ['null', 'null'],
    ])('answers like fromMessage for a message with a bad or unusual %s', (_what, patch) => {
      const m = typeof patch === 'string' ? patch : tamper(sut.toMessage(delta()), patch);
      const fast = readFast(m);
      expect(fast).toEqual(read(m));
    });
  });
});
