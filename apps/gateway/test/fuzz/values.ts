import { Prng } from './prng';

/** Value generators shared by the fuzz generators: the edges parsers get wrong. */

const UNICODE = 'aé中😀\u0000\u0001\u001f\u007f\u00a0\u200b\u202e\ufeff\uffff';
const ASCII = 'abcXYZ019-_.~!$&\'()*+,;=:@/?#[]% "<>\\^`{|}';

export function text(p: Prng, max = 40): string {
  return p.oneOf<string>([
    [6, () => p.string('abcdefghijklmnopqrstuvwxyz0123456789-_./', p.int(0, max))],
    [2, () => p.string(ASCII, p.int(0, max))],
    [2, () => p.string(UNICODE + 'ab/', p.int(0, max))],
    [1, () => ''],
    [1, () => ' '.repeat(p.int(1, 5))],
    [1, () => 'x'.repeat(p.pick([255, 256, 1024, 1025, 4096, 70000]))],
  ]);
}

export function integer(p: Prng): string {
  return p.oneOf<string>([
    [5, () => String(p.int(0, 100))],
    [2, () => String(p.int(-5, 5))],
    [1, () => p.pick(['2147483647', '2147483648', '-2147483649', '9007199254740993', '1e3', '0x10', '1.5', '-0', '+7', ' 3 ', '', 'NaN', 'Infinity', '١٢'])],
    [1, () => '9'.repeat(p.int(10, 400))],
  ]);
}

export function isoDate(p: Prng): string {
  return p.oneOf<string>([
    [3, () => `20${p.int(10, 40)}-${String(p.int(1, 12)).padStart(2, '0')}-${String(p.int(1, 28)).padStart(2, '0')}T00:00:00.000Z`],
    [1, () => `2026-${p.int(0, 13)}-${p.int(0, 40)}T${p.int(0, 25)}:61:00Z`],
    [1, () => p.pick(['', 'yesterday', '0000-00-00T00:00:00Z', '9999-12-31T23:59:59Z', '275760-09-13T00:00:00Z', '2026-02-30', '1970-01-01T00:00:00+25:00'])],
  ]);
}

export function httpDate(p: Prng): string {
  return p.oneOf<string>([
    [3, () => new Date(Date.UTC(p.int(1960, 2100), p.int(0, 11), p.int(1, 28), p.int(0, 23))).toUTCString()],
    [1, () => p.pick(['', 'garbage', 'Sun, 31 Feb 2026 25:61:61 GMT', 'Thu, 01 Jan 1970 00:00:00 GMT', '0', '-1', 'Fri, 31 Dec 99999 23:59:59 GMT'])],
    [1, () => isoDate(p)],
  ]);
}

export function etag(p: Prng, known: readonly string[]): string {
  return p.oneOf<string>([
    [3, () => (known.length ? p.pick(known) : '"x"')],
    [2, () => `"${p.string('0123456789abcdef', p.pick([32, 31, 33, 0]))}"`],
    [1, () => `"${p.string('0123456789abcdef', 32)}-${integer(p)}"`],
    [1, () => p.pick(['*', 'W/"abc"', '""', '"', 'a,b', ' , ', text(p, 10)])],
    [1, () => Array.from({ length: p.int(2, 5) }, () => (known.length ? p.pick(known) : '"y"')).join(', ')],
  ]);
}

/** A key as S3 callers send them: mostly plain, often hostile. */
export function key(p: Prng): string {
  return p.oneOf<string>([
    [5, () => p.string('abcdefgh/._-', p.int(1, 30))],
    [2, () => text(p, 60)],
    // deep but valid keys stay shallow: a listing walks one partition per level (issue 13, left), which
    // deep-marker.int-spec measures; past 1024 bytes the key must be refused before any write
    [1, () => '/'.repeat(p.pick([1, 2, 3, 17, 64, 200, 1025, 1100, 2000]))],
    [1, () => p.pick(['.', '..', '../', './', '../fuzz-keep/precious-a', '%2e%2e/fuzz-keep/precious-a', 'a//b', '/leading', 'trailing/', ' ', 'a\u0000b'])],
    [1, () => 'k'.repeat(p.pick([1023, 1024, 1025, 2000]))],
    [1, () => 'é'.repeat(p.pick([511, 512, 513]))],
  ]);
}

/** Percent-encodes `s` for a request line, sometimes in ways a careful client would not. */
export function encodePath(p: Prng, s: string): string {
  const strict = encodeURIComponent(s).replace(/%2F/g, '/');
  return p.oneOf<string>([
    [6, () => strict],
    [1, () => encodeURIComponent(s)],
    [1, () => strict.replace(/%/g, p.pick(['%', '%25', '%%', '%G']))],
    [1, () => strict + p.pick(['%', '%F', '%FF', '%C0%AF', '%00', '%E2%82', ';x=1', '#frag'])],
    [1, () => Array.from(Buffer.from(s, 'utf8')).map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')],
  ]);
}

/** A random raw query string (names and values as sent on the wire). */
export function rawQuery(p: Prng, names: readonly string[]): string {
  return Array.from({ length: p.int(0, 6) }, () => {
    const name = p.chance(0.8) ? p.pick(names) : text(p, 10);
    if (p.chance(0.2)) return encodePath(p, name);
    return `${encodePath(p, name)}=${encodePath(p, p.chance(0.5) ? integer(p) : text(p, 30))}`;
  }).join(p.pick(['&', '&', '&', '&&', ';']));
}
