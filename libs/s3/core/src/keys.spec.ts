import { commonPrefixOf, compareUtf8, folderRowsOf, joinKey, prefixSuccessor, splitKey } from './keys';

describe(splitKey.name, () => {
  it.each([
    ['images/pets/cats/black.png', 'images/pets/cats/', 'black.png'],
    ['a', '', 'a'],
    ['', '', ''],
    ['a/', 'a/', ''],
    ['a//b', 'a//', 'b'],
    ['/', '/', ''],
    ['//x//', '//x//', ''],
    ['ключ/файл.txt', 'ключ/', 'файл.txt'],
  ])('splits %j into %j + %j and joins back', (key, parent, name) => {
    const sut = splitKey(key);
    expect(sut).toEqual({ parent, name });
    expect(joinKey(sut.parent, sut.name)).toBe(key);
  });

  it('is reversible on random keys', () => {
    const alphabet = ['a', 'b', '/', '-', '.', 'é', '😀', ''];
    for (let i = 0; i < 2000; i++) {
      let key = '';
      for (let j = Math.floor(Math.random() * 12); j > 0; j--) key += alphabet[Math.floor(Math.random() * alphabet.length)];
      const { parent, name } = splitKey(key);
      expect(parent + name).toBe(key);
      expect(name.includes('/')).toBe(false);
      expect(parent === '' || parent.endsWith('/')).toBe(true);
    }
  });
});

describe(folderRowsOf.name, () => {
  it('names every ancestor directory with its trailing slash', () => {
    expect(folderRowsOf('images/pets/cats/black.png')).toEqual([
      { parent: '', name: 'images/' },
      { parent: 'images/', name: 'pets/' },
      { parent: 'images/pets/', name: 'cats/' },
    ]);
    expect(folderRowsOf('a')).toEqual([]);
    expect(folderRowsOf('a//b/')).toEqual([
      { parent: '', name: 'a/' },
      { parent: 'a/', name: '/' },
      { parent: 'a//', name: 'b/' },
    ]);
  });
});

describe(prefixSuccessor.name, () => {
  it('is greater than every extension and the least such string', () => {
    expect(prefixSuccessor('ab')).toBe('ac');
    expect(prefixSuccessor('a/')).toBe('a0');
    expect(prefixSuccessor('')).toBeUndefined();
    expect(prefixSuccessor('a\u{10ffff}')).toBe('b');
    expect(prefixSuccessor('\ud7ff')).toBe('\ue000');
    const s = prefixSuccessor('x😀')!;
    expect(compareUtf8('x😀\u{10ffff}\u{10ffff}', s)).toBeLessThan(0);
  });
});

describe(commonPrefixOf.name, () => {
  it('finds the first delimiter after the prefix', () => {
    expect(commonPrefixOf('a/b/c', '', '/')).toBe('a/');
    expect(commonPrefixOf('a/b/c', 'a/', '/')).toBe('a/b/');
    expect(commonPrefixOf('a/b', 'a/b', '/')).toBeUndefined();
    expect(commonPrefixOf('xaxbx', 'xa', 'x')).toBe('xax');
    expect(commonPrefixOf('abab', 'a', 'ab')).toBe('abab');
    expect(commonPrefixOf('a/b', '', undefined)).toBeUndefined();
  });
});
