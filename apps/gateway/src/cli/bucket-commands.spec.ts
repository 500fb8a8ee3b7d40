import { parseAdminArgs } from './admin-cli';
import { BucketCommand, parseBucketArgs, table } from './bucket-commands';
import { formatBytes, parseSize } from './sizes';

describe(parseSize.name, () => {
  it.each([
    ['1048576', 1048576],
    ['10MiB', 10 * 2 ** 20],
    ['10 mib', 10 * 2 ** 20],
    ['10MB', 10_000_000],
    ['1G', 1e9],
    ['1GiB', 2 ** 30],
    ['1.5KiB', 1536],
    ['0', 0],
  ])('reads %s as %d bytes (decimal K/M/G, binary KiB/MiB/GiB, as mc does)', (text, bytes) => {
    expect(parseSize(text)).toBe(bytes);
  });

  it.each(['', 'ten', '10XB', '-1', '1.3B'])('refuses %j', (text) => {
    expect(() => parseSize(text)).toThrow(/is not a/);
  });
});

describe(formatBytes.name, () => {
  it.each([
    [0, '0 B'],
    [512, '512 B'],
    [10 * 2 ** 20, '10 MiB'],
    [1.5 * 2 ** 30, '1.5 GiB'],
    [10_000_000, '9.5 MiB'],
  ])('shows %d as %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});

describe(parseBucketArgs.name, () => {
  const call = (argv: string[]) => parseBucketArgs(argv) as BucketCommand;

  it('maps the bucket commands to admin API calls', () => {
    expect(call(['list'])).toMatchObject({ method: 'GET', path: '/admin/buckets' });
    expect(call(['usage', 'logs'])).toMatchObject({ method: 'GET', path: '/admin/buckets/logs/usage' });
    expect(call(['quota', 'set', 'logs', '--max-bytes', '10MiB', '--max-objects', '100'])).toMatchObject({
      method: 'PUT',
      path: '/admin/buckets/logs/quota',
      body: { maxBytes: 10 * 2 ** 20, maxObjects: 100 },
    });
    expect(call(['quota', 'set', 'logs', '--max-objects', 'none'])).toMatchObject({ body: { maxObjects: null } });
    expect(call(['quota', 'clear', 'logs'])).toMatchObject({ method: 'DELETE', path: '/admin/buckets/logs/quota' });
    expect(call(['quota', 'recount', 'logs'])).toMatchObject({ method: 'POST', path: '/admin/buckets/logs/quota/recount' });
    expect(parseAdminArgs(['bucket', 'list'])).toMatchObject({ method: 'GET', path: '/admin/buckets' });
  });

  it('answers --help on every command, and the top level too', () => {
    for (const argv of [['--help'], ['list', '--help'], ['quota', 'set', 'x', '-h'], ['usage', '--help']])
      expect(parseBucketArgs(argv)).toEqual({ help: expect.stringContaining('bucket quota set <bucket>') });
    expect(parseAdminArgs(['user', 'create', '--help'])).toEqual({ help: expect.stringContaining('user create <id>') });
  });

  it('prints tables with human sizes by default and the answer itself with --json', () => {
    const answer = {
      bucket: 'logs',
      bytes: 5 * 2 ** 20,
      objects: 5,
      source: 'ledger',
      asOf: '2026-12-01T15:00:00.000Z',
      quota: { maxBytes: 10 * 2 ** 20 },
      utilisation: { bytes: 0.5 },
    };
    const human = call(['usage', 'logs']).render(answer);
    expect(human).toMatch(/bytes\s+5 MiB \(5242880 bytes\)/);
    expect(human).toMatch(/byte quota\s+10 MiB, 50\.0 % used/);
    expect(human).toMatch(/as of\s+2026-12-01T15:00:00.000Z \(live quota ledger\)/);
    expect(JSON.parse(call(['usage', 'logs', '--json']).render(answer))).toEqual(answer);
    const list = call(['list']).render([
      { name: 'logs', owner: 'alice', createdAt: '2026-12-01T10:00:00.000Z', quota: { maxBytes: 2 ** 30, maxObjects: 10 }, usage: { bytes: 2 ** 20, objects: 1 } },
      { name: 'media', owner: 'bob', createdAt: '2026-12-01T11:00:00.000Z' },
    ]);
    expect(list.split('\n').slice(0, 3)).toEqual([
      'NAME   OWNER  CREATED (UTC)        USED   OBJECTS  QUOTA',
      'logs   alice  2026-12-01 10:00:00  1 MiB  1        1 GiB, 10 objects',
      'media  bob    2026-12-01 11:00:00  -      -        -',
    ]);
  });

  it.each([
    [[], 'bucket needs a command'],
    [['quota', 'set', 'logs'], 'bucket quota set needs --max-bytes and/or --max-objects'],
    [['quota', 'set', 'logs', '--max-bytes', 'lots'], '"lots" is not a size'],
    [['quota', 'set', 'logs', '--max-objects', '1.5'], '--max-objects needs a whole number'],
    [['usage'], 'bucket usage needs <bucket>'],
    [['usage', 'a', 'b'], 'unexpected argument "b"'],
    [['list', '--max-bytes', '1'], 'belong to "bucket quota set"'],
    [['drop', 'x'], 'unknown command "bucket drop x"'],
    [['list', '--colour'], 'unknown option --colour'],
  ])('rejects %j with a precise message', (argv, message) => {
    expect(() => parseBucketArgs(argv as string[])).toThrow(message);
  });

  it('pads table columns to their widest cell', () => {
    expect(table(['A', 'BB'], [['xyz', '1']])).toBe('A    BB\nxyz  1');
  });
});
