import { compareGroups, groupByConstructor } from './heap-diff';
import { arenaStarts, groupOf, parseSmaps } from './smaps-diff';

describe('heap snapshot comparison', () => {
  const snapshot = (nodes: number[][]) => ({
    snapshot: { meta: { node_fields: ['type', 'name', 'id', 'self_size'], node_types: [['hidden', 'array', 'string', 'object', 'code', 'closure']] as [string[]] } },
    strings: ['', 'Map', 'Entry', 'x'],
    nodes: nodes.flat(),
  });

  it('groups objects by constructor and V8 internals by type, and sorts by byte growth', () => {
    const a = groupByConstructor(snapshot([[3, 1, 1, 40], [3, 2, 2, 16], [2, 3, 3, 10]]));
    const b = groupByConstructor(snapshot([[3, 1, 1, 40], [3, 2, 2, 16], [3, 2, 4, 16], [3, 2, 5, 16], [2, 3, 3, 10], [4, 0, 6, 100]]));
    expect(a.get('Entry')).toEqual({ count: 1, bytes: 16 });
    expect(b.get('(string)')).toEqual({ count: 1, bytes: 10 });
    expect(compareGroups(a, b).map((r) => r.name)).toEqual(['(code)', 'Entry', 'Map', '(string)']);
  });
});

describe('smaps comparison', () => {
  const smaps = [
    '00400000-00500000 r-xp 00000000 08:01 1   /usr/bin/node',
    'Rss:   1000 kB',
    '01000000-02000000 rw-p 00000000 00:00 0   [heap]',
    'Rss:   300 kB',
    '7f0000000000-7f0000100000 rw-p 00000000 00:00 0',
    'Rss:   900 kB',
    '7f0000100000-7f0004000000 ---p 00000000 00:00 0',
    'Rss:   0 kB',
    '7f1000000000-7f1000040000 rw-p 00000000 00:00 0',
    'Rss:   256 kB',
  ].join('\n');

  it('reads every mapping with its size and resident kB', () => {
    const ms = parseSmaps(smaps);
    expect(ms.map((m) => [m.name, m.sizeKiB, m.rssKiB])).toEqual([
      ['/usr/bin/node', 1024, 1000],
      ['[heap]', 16384, 300],
      ['', 1024, 900],
      ['', 64512, 0],
      ['', 256, 256],
    ]);
  });

  it('tells a 64 MiB malloc arena from other anonymous memory', () => {
    const ms = parseSmaps(smaps);
    const arenas = arenaStarts(ms);
    expect(ms.map((m) => groupOf(m, arenas))).toEqual(['file-backed', '[heap]', 'malloc thread arenas (64 MiB reservations)', 'malloc thread arenas (64 MiB reservations)', 'other anonymous (V8 heap and code, mmap)']);
  });
});
