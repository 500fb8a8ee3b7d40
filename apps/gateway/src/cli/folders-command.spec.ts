import { parseFoldersArgs, renderFoldersStatus } from './folders-command';

describe(parseFoldersArgs.name, () => {
  it('maps status, its options and --help', () => {
    expect(parseFoldersArgs(['status'])).toEqual({ kind: 'status', path: '/admin/folders/status?generations=3', json: false });
    expect(parseFoldersArgs(['status', '--json', '--generations', '10'])).toEqual({ kind: 'status', path: '/admin/folders/status?generations=10', json: true });
    expect(parseFoldersArgs(['status', '--help'])).toEqual({ kind: 'help' });
  });

  it.each([
    [[], 'folders needs a command (status)'],
    [['delete'], 'unknown command "folders delete"'],
    [['status', '--generations', '0'], '--generations needs an integer from 1 to 100'],
    [['status', '--colour'], 'unknown option --colour'],
    [['status', 'x'], 'unexpected argument "x"'],
  ])('rejects %j with a precise message', (argv, message) => {
    expect(() => parseFoldersArgs(argv as string[])).toThrow(message);
  });
});

describe(renderFoldersStatus.name, () => {
  it('says when there is no generation yet', () => {
    expect(renderFoldersStatus({ generations: [] })).toMatch(/^no filter generation yet/);
  });

  it('aligns one line per scanner and one per queue under the header', () => {
    const text = renderFoldersStatus({
      generations: [
        {
          generation: 7,
          openedAt: 'T0',
          capacity: 1000,
          fpr: 0.01,
          bits: 9600,
          hashes: 7,
          hosts: [{ source: 'a', built: true, keys: 5, pass: { checked: 10, foundEmpty: 2, published: 1, finishedAt: 'T1', byKind: { object: { checked: 10, foundEmpty: 2, published: 1 } } } }],
        },
      ],
    });
    const lines = text.split('\n');
    expect(lines[1]).toMatch(/^7 +T0 +a +all +built 5 keys +10 +2 +1 +done T1$/);
    expect(lines[2]).toMatch(/^ +object-folders +10 +2 +1$/);
    expect(lines[0].indexOf('CHECKED')).toBe(lines[1].indexOf('10'));
  });
});
