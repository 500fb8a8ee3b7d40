import { filterElement, parentDirectories } from './parent-prefixes';

describe(parentDirectories.name, () => {
  it.each([
    ['a/b/c.png', ['a/', 'a/b/']],
    ['a/b/', ['a/', 'a/b/']],
    ['a//b', ['a/', 'a//']],
    ['/x', ['/']],
    ['a/b-c', ['a/']],
    ['top', []],
    ['', []],
    ['фото/котики/чёрный.png', ['фото/', 'фото/котики/']],
    ['😀/🐱/x', ['😀/', '😀/🐱/']],
  ])('%j is inside %j', (key, dirs) => {
    expect(parentDirectories(key)).toEqual(dirs);
  });

});

describe(filterElement.name, () => {
  it('tells kinds and buckets apart', () => {
    const all = new Set([
      filterElement('object', 'b1', 'a/'),
      filterElement('version', 'b1', 'a/'),
      filterElement('upload', 'b1', 'a/'),
      filterElement('object', 'b2', 'a/'),
    ]);
    expect(all.size).toBe(4);
  });
});
