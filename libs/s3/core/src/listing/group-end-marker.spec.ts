import { compareUtf8 } from '../keys';
import { groupEndMarker } from './group-end-marker';

describe(groupEndMarker.name, () => {
  const max = 1024;
  /** The greatest valid keys of at most `max` bytes that start with `dir`, whatever their tail. */
  const greatestKeys = (dir: string) => {
    const room = max - Buffer.byteLength(dir, 'utf8');
    const full = '\u{10FFFF}'.repeat(Math.floor(room / 4));
    return [full, full + '\u{FFFF}', full + '\u07FF', full + '\x7F', full.slice(0, -2) + '\u{10FFFE}', '\uFFFF'.repeat(Math.floor(room / 3))]
      .map((tail) => dir + tail)
      .filter((k) => Buffer.byteLength(k, 'utf8') <= max);
  };

  it.each(['a/', '/'.repeat(1000), 'a/'.repeat(511), 'é/日本/', '/'.repeat(1021), '/'.repeat(1024)])('sorts after every key of %j and before every later key', (dir) => {
    const sut = groupEndMarker(dir, max);
    expect(sut.startsWith(dir)).toBe(true);
    for (const k of [dir, dir + 'z', ...greatestKeys(dir)]) expect(compareUtf8(k, sut)).toBeLessThan(0);
    const after = dir.slice(0, -1) + '0'; // the first string past the group ('/' + 1)
    expect(compareUtf8(sut, after)).toBeLessThan(0);
  });

  it('needs its last character: without it a key of the maximum length would sort after it', () => {
    const dir = 'a/';
    const sut = groupEndMarker(dir, max);
    const key = sut.slice(0, -2) + '\u07FF'; // 1024 bytes: 1020 + ... a key that fits
    expect(Buffer.byteLength(key, 'utf8')).toBeLessThanOrEqual(max);
    expect(compareUtf8(key, sut)).toBeLessThan(0);
    expect(compareUtf8(key, sut.slice(0, -2))).toBeGreaterThan(0);
  });
});
