import { BloomFilter } from 'bloomfilter';
import { DirectoryFilter } from './directory-filter';
import { estimatedFpr, fillRatio, shapeFor } from './filter-shape';
import { filterElement } from './parent-prefixes';

const B = '3f1e8d52-7c1a-4e0b-9a55-0d9e2c4b7a10';

describe(DirectoryFilter.name, () => {
  it('holds every parent directory of the keys added, and only of their kind and bucket', () => {
    const sut = DirectoryFilter.create(shapeFor(1000, 0.001));
    sut.addKey('object', B, 'фото/котики/чёрный.png');
    sut.addKey('object', B, 'a/b-c');
    expect(sut.mayContain('object', B, 'фото/')).toBe(true);
    expect(sut.mayContain('object', B, 'фото/котики/')).toBe(true);
    expect(sut.mayContain('object', B, 'a/')).toBe(true);
    expect(sut.mayContain('object', B, 'a/b-')).toBe(false);
    expect(sut.mayContain('version', B, 'фото/')).toBe(false);
    expect(sut.mayContain('object', 'other', 'фото/')).toBe(false);
  });

  it('ORs filters of the same shape and refuses others', () => {
    const shape = shapeFor(1000, 0.01);
    const a = DirectoryFilter.create(shape);
    const b = DirectoryFilter.create(shape);
    a.addKey('object', B, 'x/1');
    b.addKey('upload', B, 'y/2');
    a.orWith(b);
    expect(a.mayContain('object', B, 'x/')).toBe(true);
    expect(a.mayContain('upload', B, 'y/')).toBe(true);
    expect(() => a.orWith(DirectoryFilter.create(shapeFor(2000, 0.01)))).toThrow(RangeError);
  });

  it('round-trips through chunks', () => {
    const shape = shapeFor(5000, 0.01);
    const sut = DirectoryFilter.create(shape);
    for (let i = 0; i < 5000; i++) sut.addDirectory('version', B, `d${i}/`);
    const chunks = sut.toChunks(1024).map((c) => Buffer.from(c)); // copies, as Cassandra returns them
    expect(chunks.length).toBe(Math.ceil(shape.bits / 8 / 1024));
    const back = DirectoryFilter.fromChunks(shape, chunks);
    expect(back.setBits()).toBe(sut.setBits());
    for (let i = 0; i < 5000; i++) expect(back.mayContain('version', B, `d${i}/`)).toBe(true);
    expect(() => DirectoryFilter.fromChunks(shape, chunks.slice(1))).toThrow(RangeError);
    expect(() => sut.toChunks(6)).toThrow(RangeError);
  });

  it('hashes an unsalted filter exactly as before salts existed (generations opened earlier)', () => {
    const shape = shapeFor(1000, 0.01);
    const sut = DirectoryFilter.create(shape);
    const plain = new BloomFilter(shape.bits, shape.hashes);
    for (let i = 0; i < 300; i++) {
      sut.addDirectory('object', B, `p${i}/`);
      plain.add(filterElement('object', B, `p${i}/`));
    }
    expect(Buffer.from(sut.toChunks(shape.bits / 8)[0])).toEqual(Buffer.from(new Uint8Array(plain.buckets.buffer)));
  });

  it('gives each salt other false positives, so an empty directory is not missed in every generation', () => {
    // a small, full filter: many false positives per generation
    const base = shapeFor(200, 0.05);
    const present = Array.from({ length: 200 }, (_, i) => `full${i}/`);
    const absent = Array.from({ length: 5000 }, (_, i) => `empty${i}/`);
    const falsePositives = (salt: number): Set<string> => {
      const f = DirectoryFilter.create({ ...base, salt });
      for (const d of present) f.addDirectory('object', B, d);
      for (const d of present) expect(f.mayContain('object', B, d)).toBe(true); // never a false negative
      return new Set(absent.filter((d) => f.mayContain('object', B, d)));
    };
    const g1 = falsePositives(1);
    const g2 = falsePositives(2);
    expect(g1.size).toBeGreaterThan(50);
    const inBoth = [...g1].filter((d) => g2.has(d)).length;
    // independent hashes: about fpr × |g1| repeat; the same hashes would repeat all of them
    expect(inBoth).toBeLessThan(g1.size * 0.25);
  });

  it('refuses to combine filters of different salts', () => {
    const shape = shapeFor(1000, 0.01);
    const a = DirectoryFilter.create({ ...shape, salt: 7 });
    expect(() => a.orWith(DirectoryFilter.create({ ...shape, salt: 8 }))).toThrow(/salt/);
    expect(() => a.orWith(DirectoryFilter.create(shape))).toThrow(RangeError);
    expect(DirectoryFilter.fromChunks({ ...shape, salt: 7 }, a.toChunks(1024)).shape).toEqual({ ...shape, salt: 7 });
  });

  it('measures within 1.2x of the configured false-positive rate on 1,000,000 directories', () => {
    const fpr = 0.01;
    const n = 1_000_000;
    const shape = shapeFor(n, fpr);
    const sut = DirectoryFilter.create(shape);
    // a synthetic tree: 1,000 buckets-worth of top directories, 10 below each, 100 below those
    for (let i = 0; i < n; i++) sut.addDirectory('object', B, `t${i % 1000}/s${Math.floor(i / 1000) % 10}/d${Math.floor(i / 10_000)}/`);
    let falsePositives = 0;
    const probes = 1_000_000;
    for (let i = 0; i < probes; i++) if (sut.mayContain('object', B, `t${i % 1000}/s${Math.floor(i / 1000) % 10}/e${Math.floor(i / 10_000)}/`)) falsePositives++;
    const measured = falsePositives / probes;
    const fill = fillRatio(sut.setBits(), shape);
    expect(measured).toBeLessThanOrEqual(fpr * 1.2);
    expect(estimatedFpr(fill, shape)).toBeLessThanOrEqual(fpr * 1.2);
    // memory: about 1.2 MB, against tens of MB for a Set of the same strings
    expect(shape.bits / 8).toBeLessThan(1_250_000);
  });
});
