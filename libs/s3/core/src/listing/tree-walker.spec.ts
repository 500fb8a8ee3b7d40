import { compareUtf8 } from '../keys';
import { InMemoryTreeSource, modelList } from '../testing';
import { takePage, TreeWalker, WalkEvent, WalkOptions } from './tree-walker';

const show = (e: WalkEvent<{ key: string }>) => (e.kind === 'row' ? e.key : e.prefix);

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const ALPHABET = ['a', 'b', '/', '/', '-', '.', 'é', '😀', '\uffff', 'z', '0'];

function randomKey(r: () => number): string {
  if (r() < 0.15) {
    // deep nesting
    let k = '';
    for (let d = 1 + Math.floor(r() * 7); d > 0; d--) k += ['a/', 'b/', 'a-', '/'][Math.floor(r() * 4)];
    return k + ['x', '', 'a', 'é'][Math.floor(r() * 4)];
  }
  let k = '';
  for (let n = 1 + Math.floor(r() * 8); n > 0; n--) k += ALPHABET[Math.floor(r() * ALPHABET.length)];
  return k;
}

function randomBound(r: () => number, keys: string[]): string {
  const k = keys[Math.floor(r() * keys.length)] ?? '';
  const c = r();
  if (c < 0.4) return k.slice(0, Math.floor(r() * (k.length + 1)));
  if (c < 0.7) return k;
  return randomKey(r);
}

async function walkAll(source: InMemoryTreeSource<{ key: string }>, o: Parameters<typeof modelList>[1], pageSize: number) {
  const sut = new TreeWalker(source, { ...o, pageSize, maxPageSize: pageSize * 4 });
  const out: string[] = [];
  for (let e = await sut.next(); e; e = await sut.next()) out.push(show(e));
  return out;
}

/** A marker listing page by page (the next marker is the last entry, as a v1 client does); a truncated page must hold one. */
async function markerPages(source: InMemoryTreeSource<{ key: string }>, o: WalkOptions<{ key: string }>, maxKeys: number): Promise<string[]> {
  const out: string[] = [];
  let after = o.after;
  for (let guard = 0; guard < 200; guard++) {
    const page = await takePage(new TreeWalker(source, { ...o, after }), maxKeys);
    if (page.isTruncated && page.events.length === 0) throw new Error(`an empty truncated page after ${after}`);
    out.push(...page.events.map(show));
    if (!page.isTruncated) return out;
    after = show(page.events[page.events.length - 1]);
  }
  throw new Error('the listing did not end');
}

describe(TreeWalker.name, () => {
  const rows = (keys: string[]) => keys.map((key) => ({ key }));
  const src = (keys: string[], extraFolders: string[] = []) =>
    new InMemoryTreeSource(rows(keys), (r) => r.key, () => 0, extraFolders);
  /** Up to `n` random keys and a few empty folders (as deletes leave them). */
  const randomTree = (r: () => number, n: number) => {
    const keys = [...new Set(Array.from({ length: 1 + Math.floor(r() * n) }, () => randomKey(r)))];
    const empties = Array.from({ length: Math.floor(r() * 3) }, () => randomKey(r) + '/');
    return { keys, empties, source: src(keys, empties) };
  };

  it('lists in UTF-8 order of the whole key, not directory by directory', async () => {
    const keys = ['a/b', 'a-b', 'a0', 'a', 'a/', 'a//c', 'b/é', 'b/z', 'b/😀', 'b/\uffff'];
    expect(await walkAll(src(keys), {}, 2)).toEqual([...keys].sort(compareUtf8));
    expect([...keys].sort(compareUtf8)).toEqual(['a', 'a-b', 'a/', 'a//c', 'a/b', 'a0', 'b/z', 'b/é', 'b/\uffff', 'b/😀']);
  });

  it('groups by "/" without descending and hides empty folders', async () => {
    const source = src(['x/1', 'x/y/2', 'z', 'w/q/r'], ['empty/', 'w/e/']);
    expect(await walkAll(source, { delimiter: '/' }, 3)).toEqual(['w/', 'x/', 'z']);
    expect(await walkAll(source, { delimiter: '/', prefix: 'w/' }, 3)).toEqual(['w/q/']);
  });

  it('handles a prefix ending mid-name and other delimiters', async () => {
    const keys = ['a/b', 'a/bc/d', 'a/bd', 'a/c', 'a/b-x-y', 'a/b-x', 'a/bxq'];
    expect(await walkAll(src(keys), { prefix: 'a/b', delimiter: '/' }, 2)).toEqual(modelList(keys, { prefix: 'a/b', delimiter: '/' }));
    expect(await walkAll(src(keys), { prefix: 'a/b', delimiter: 'x' }, 2)).toEqual(['a/b', 'a/b-x', 'a/bc/d', 'a/bd', 'a/bx']);
  });

  it('skips a large delimiter group by seeking, not by reading it', async () => {
    const keys = [...Array.from({ length: 500 }, (_, i) => `g-${String(i).padStart(4, '0')}`), 'h'];
    const source = src(keys);
    expect(await walkAll(source, { delimiter: '-' }, 10)).toEqual(['g-', 'h']);
    expect(source.rowsRead).toBeLessThan(50);
  });

  it('does not report a CommonPrefix at or before the start key (continuation markers)', async () => {
    const keys = ['asdf', 'boo/bar', 'boo/baz/xyzzy', 'cquux/thud', 'cquux/bla'];
    const pages: string[] = [];
    let after: string | undefined;
    for (;;) {
      const { events, isTruncated } = await takePage(new TreeWalker(src(keys), { delimiter: '/', after }), 1);
      pages.push(...events.map(show));
      if (!isTruncated) break;
      after = show(events[events.length - 1]);
    }
    expect(pages).toEqual(['asdf', 'boo/', 'cquux/']);
  });

  it('returns nothing, untruncated, for maxKeys 0', async () => {
    expect(await takePage(new TreeWalker(src(['a']), {}), 0)).toEqual({ events: [], isTruncated: false });
  });

  it('skips invisible rows and groups holding only invisible rows', async () => {
    const all = ['a/1', 'a/2', 'b/1', 'c', 'd/e/f'];
    const hidden = new Set(['b/1', 'c', 'd/e/f']);
    const source = src(all);
    const sut = new TreeWalker(source, { delimiter: '/', keyFilter: (k) => () => !hidden.has(k) });
    const out: string[] = [];
    for (let e = await sut.next(); e; e = await sut.next()) out.push(show(e));
    expect(out).toEqual(['a/']);
  });

  it('resumes inside a key after a given row', async () => {
    const versions = [
      { key: 'k', v: 3 },
      { key: 'k', v: 2 },
      { key: 'k', v: 1 },
      { key: 'k2', v: 1 },
    ];
    const source = new InMemoryTreeSource(versions, (r) => r.key, (a, b) => b.v - a.v);
    const sut = new TreeWalker(source, { after: 'k', resumeAfter: versions[1], pageSize: 1 });
    const out: string[] = [];
    for (let e = await sut.next(); e; e = await sut.next()) if (e.kind === 'row') out.push(`${e.key}@${e.row.v}`);
    expect(out).toEqual(['k@1', 'k2@1']);
  });

  it('a deep start key costs the same few queries as a shallow one when listing with a delimiter', async () => {
    const deep = 'c/' + 'd/'.repeat(1000) + 'k';
    const keys = ['a', 'b/x', deep, 'c/' + 'd/'.repeat(500) + 'k2', 'e/y', 'f'];
    const costs: number[] = [];
    for (const after of ['c/k', deep]) {
      const source = src(keys);
      const { events } = await takePage(new TreeWalker(source, { delimiter: '/', after }), 10);
      expect(events.map(show)).toEqual(['e/', 'f']);
      costs.push(source.queries);
    }
    expect(costs[1]).toBe(costs[0]);
    expect(costs[1]).toBeLessThanOrEqual(4);
  });

  it('climbs out of a deep start key without a delimiter with its queries pipelined', async () => {
    const depth = 400;
    const deep = 'd/'.repeat(depth) + 'k';
    const keys = [deep, 'd/'.repeat(depth) + 'l', 'z'];
    const source = src(keys);
    let inFlight = 0;
    let most = 0;
    const slow = <A extends unknown[], T>(f: (...a: A) => Promise<T>) => async (...a: A) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setImmediate(r));
      inFlight--;
      return f(...a);
    };
    const sut = new TreeWalker<{ key: string }>(
      { nameOf: (r) => source.nameOf(r), leaves: slow(source.leaves.bind(source)), folders: slow(source.folders.bind(source)) },
      { after: deep, prefetchDepth: 8, levelBudget: Infinity },
    );
    const { events } = await takePage(sut, 10);
    expect(events.map(show)).toEqual([keys[1], 'z']);
    expect(most).toBeGreaterThanOrEqual(8);
  });

  describe('a start key deeper than the level budget (no delimiter)', () => {
    const others = ['a/x', 'z/y', 'zz'];
    /** Pages of a resumable listing (a continuation token carrying `cut`), with each page's query count. */
    async function resumablePages(source: InMemoryTreeSource<{ key: string }>, o: { after?: string; prefix?: string; delimiter?: string; levelBudget?: number; maxKeys?: number }) {
      const pages: { keys: string[]; queries: number }[] = [];
      let after: string | undefined = o.after;
      let afterGroup = false;
      for (let guard = 0; guard < 1000; guard++) {
        const before = source.queries;
        const sut: TreeWalker<{ key: string }> = new TreeWalker(source, { prefix: o.prefix, delimiter: o.delimiter, after, afterGroup, resumableCut: true, levelBudget: o.levelBudget ?? 32 });
        const { events, isTruncated } = await takePage(sut, o.maxKeys ?? 100);
        pages.push({ keys: events.map(show), queries: source.queries - before });
        if (!isTruncated) return pages;
        afterGroup = sut.cut !== undefined;
        after = sut.cut ?? show(events[events.length - 1]);
      }
      throw new Error('the listing did not end');
    }

    it('a made-up path costs about log2(depth) folder reads more than a shallow one, whatever its depth', async () => {
      const costs: number[] = [];
      for (const depth of [10, 100, 1000]) {
        const source = src(others);
        const pages = await resumablePages(source, { after: '/'.repeat(depth) });
        expect(pages.map((p) => p.keys)).toEqual([others]);
        costs.push(pages[0].queries);
      }
      // two queries per level read, and two per directory of the keys listed (a/, z/): depth 10 is
      // within the budget (11 levels), deeper ones cost a binary search and then the one level that exists
      expect(costs[0]).toBe(2 * 11 + 4);
      expect(costs[1]).toBeLessThanOrEqual(Math.ceil(Math.log2(101)) + 2 + 4);
      expect(costs[2]).toBeLessThanOrEqual(Math.ceil(Math.log2(1001)) + 2 + 4);
    });

    it('an existing deep path is resumed over pages of bounded cost that reassemble S3 order', async () => {
      for (const depth of [10, 100, 1000]) {
        const chain = '/'.repeat(depth);
        const keys = [...others, chain + 'k', chain + 'l', '/'.repeat(depth / 2) + 'mid', '/'.repeat(depth / 2) + '/x'];
        const expected = modelList(keys, { after: chain + 'k' });
        const source = src(keys);
        const pages = await resumablePages(source, { after: chain + 'k', levelBudget: 8 });
        expect(pages.flatMap((p) => p.keys)).toEqual(expected);
        for (const p of pages) expect(p.queries).toBeLessThanOrEqual(Math.ceil(Math.log2(depth + 1)) + 2 * 8 + 4);
      }
    });

    it('without a token (a marker listing) a truncated page always holds a key, and the marker is the resume point', async () => {
      const chain = '/'.repeat(200);
      const keys = [...others, chain + 'k', '/'.repeat(150) + 'mid', '/'.repeat(20) + 'x'];
      expect(await markerPages(src(keys), { after: chain + 'k', levelBudget: 8 }, 100)).toEqual(modelList(keys, { after: chain + 'k' }));
    });

    it('resumes inside a deep key (version-id markers) within the budget', async () => {
      const deep = 'd/'.repeat(100) + 'k';
      const versions = [
        { key: deep, v: 3 },
        { key: deep, v: 2 },
        { key: deep, v: 1 },
        { key: 'd/'.repeat(99) + 'z', v: 1 },
      ];
      const source = new InMemoryTreeSource(versions, (r) => r.key, (a, b) => b.v - a.v);
      const sut = new TreeWalker(source, { after: deep, resumeAfter: versions[1], levelBudget: 4 });
      const out: string[] = [];
      for (let e = await sut.next(); e; e = await sut.next()) if (e.kind === 'row') out.push(`${e.row.v}`);
      expect(out).toEqual(['1', '1']);
    });

    it('agrees with the S3 model on random deep trees, with tokens and with markers, under a tiny budget (also with delimiters that do not stop the descent)', async () => {
      const r = rng(Number(process.env.SEED ?? 20261202));
      for (let round = 0; round < 200; round++) {
        const { keys, empties, source } = randomTree(r, 30);
        const prefix = r() < 0.3 ? randomBound(r, keys) : '';
        const after = r() < 0.8 ? randomBound(r, keys) : undefined;
        const delimiter = ['', '', '', 'a', '-', 'é', '/'][Math.floor(r() * 7)];
        const levelBudget = 1 + Math.floor(r() * 3);
        const maxKeys = 1 + Math.floor(r() * 4);
        const expected = modelList(keys, { prefix, delimiter, after });
        const context = JSON.stringify({ keys, empties, prefix, delimiter, after, levelBudget, maxKeys });
        const tokens = (await resumablePages(source, { prefix, delimiter, after, levelBudget, maxKeys })).flatMap((p) => p.keys);
        expect({ context, tokens }).toEqual({ context, tokens: expected });
        const markers = await markerPages(source, { prefix, delimiter, after, levelBudget }, maxKeys);
        expect({ context, markers }).toEqual({ context, markers: expected });
      }
    });
  });

  it('agrees with the brute-force S3 model on random trees, prefixes, delimiters and markers', async () => {
    const r = rng(Number(process.env.SEED ?? 20260101));
    for (let round = 0; round < 300; round++) {
      const { keys, empties, source } = randomTree(r, 40);
      const delimiter = ['/', '', 'a', '-', 'b/', '/a', 'é'][Math.floor(r() * 7)];
      const prefix = r() < 0.5 ? '' : randomBound(r, keys);
      const after = r() < 0.5 ? undefined : randomBound(r, keys);
      const o = { prefix, delimiter, after };
      const expected = modelList(keys, o);
      const pageSize = 1 + Math.floor(r() * 4);
      const context = JSON.stringify({ keys, empties, o });
      expect({ context, got: await walkAll(source, o, pageSize) }).toEqual({ context, got: expected });

      // paging with maxKeys and the returned marker reassembles the same list
      const maxKeys = 1 + Math.floor(r() * 5);
      const paged = await markerPages(source, { prefix, delimiter, after, pageSize }, maxKeys);
      expect({ context, maxKeys, got: paged }).toEqual({ context, maxKeys, got: expected });
    }
  });
});
