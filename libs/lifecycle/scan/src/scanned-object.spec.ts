import { SCANNER_KEPT_VERSIONS } from '@ostore/lifecycle/rules';
import { KeyGrouper } from './key-grouper';
import { byVtsDesc, vrow } from './scan-fixtures.spec-helper';
import { ScannedObject, ScannedVersionRow, VersionGroupBuilder } from './scanned-object';

function groups(rows: ScannedVersionRow[]): ScannedObject[] {
  const sut = new KeyGrouper<ScannedVersionRow, ScannedObject>((first) => new VersionGroupBuilder(first));
  const out: ScannedObject[] = [];
  for (const r of rows) {
    const g = sut.push(r);
    if (g) out.push(g);
  }
  const last = sut.finish();
  if (last) out.push(last);
  return out;
}

/** `n` versions of `name`, newest first; the i-th is `i` days old. */
const history = (name: string, n: number) => Array.from({ length: n }, (_, i) => vrow(name, i)).sort(byVtsDesc);

describe(VersionGroupBuilder.name, () => {
  it('groups adjacent rows by object and takes the newest row as the current version', () => {
    const a = history('a', 3);
    const b = history('b', 1);
    const [ga, gb] = groups([...a, ...b]);
    expect(ga).toMatchObject({ name: 'a', current: a[0], noncurrent: [a[1], a[2]], keptAll: true, rows: 3 });
    expect(gb).toMatchObject({ name: 'b', current: b[0], noncurrent: [], keptAll: true, rows: 1 });
  });

  it('keeps the current version plus the 100 newest noncurrent ones, and says it left some out', () => {
    const rows = history('big', 150);
    const [g] = groups(rows);
    expect(g.current).toBe(rows[0]);
    expect(g.noncurrent).toHaveLength(SCANNER_KEPT_VERSIONS);
    expect(g.noncurrent[0]).toBe(rows[1]);
    expect(g.noncurrent[SCANNER_KEPT_VERSIONS - 1]).toBe(rows[SCANNER_KEPT_VERSIONS]);
    expect(g.keptAll).toBe(false);
    expect(g.rows).toBe(150);
  });

  it('counts the null rows below the newest null row as stale, a ghost on top included', () => {
    // unversioned: an object whose DELETE wrote its ghost but never converged the null version beneath
    const ghost = vrow('gone', 0, { isNull: true, isGhost: true, isDeleteMarker: true });
    const deleted = vrow('gone', 1, { isNull: true });
    // overwritten twice, never converged
    const writes = [0, 1, 2].map((d) => vrow('twice', d, { isNull: true }));
    // converged: one null row; a ghost alone
    const single = vrow('single', 0, { isNull: true });
    const lone = vrow('lone', 0, { isNull: true, isGhost: true, isDeleteMarker: true });
    const [g1, g2, g3, g4] = groups([ghost, deleted, ...writes.sort(byVtsDesc), single, lone]);
    expect(g1).toMatchObject({ name: 'gone', current: undefined, noncurrent: [], staleNulls: 1 });
    expect(g2).toMatchObject({ name: 'twice', current: writes[0], noncurrent: [], staleNulls: 2 });
    expect(g3).toMatchObject({ name: 'single', staleNulls: 0 });
    expect(g4).toMatchObject({ name: 'lone', current: undefined, staleNulls: 0 });
  });

  it('is not capped at exactly the window', () => {
    const [g] = groups(history('edge', SCANNER_KEPT_VERSIONS + 1));
    expect(g.noncurrent).toHaveLength(SCANNER_KEPT_VERSIONS);
    expect(g.keptAll).toBe(true);
  });

  it('keeps a current null version that only older hidden null rows follow, and never counts those', () => {
    // a suspended bucket's current null version, 120 versioned ones below it, and stale null rows
    // of racing writers (invisible) between them: the window still holds 100 VISIBLE versions
    const current = vrow('k', 0, { isNull: true });
    const versioned = Array.from({ length: 120 }, (_, i) => vrow('k', i + 2));
    const staleNulls = Array.from({ length: 30 }, (_, i) => vrow('k', i + 1.5, { isNull: true }));
    const rows = [current, ...versioned, ...staleNulls].sort(byVtsDesc);
    const [g] = groups(rows);
    expect(g.current).toBe(current);
    expect(g.noncurrent.some((r) => r.isNull)).toBe(false);
    expect(g.noncurrent).toHaveLength(100);
    expect(g.noncurrent).toEqual(versioned.sort(byVtsDesc).slice(0, 100));
    expect(g.keptAll).toBe(false);
    expect(g.rows).toBe(151);
    expect(g.staleNulls).toBe(30);
  });

  it('shows only the newest null row, and only when it is not a ghost', () => {
    const v3 = vrow('k', 1);
    const null2 = vrow('k', 2, { isNull: true });
    const null1 = vrow('k', 3, { isNull: true });
    const [g] = groups([v3, null2, null1].sort(byVtsDesc));
    expect(g.noncurrent).toEqual([null2]);
  });

  it('gives an object whose newest row is a ghost no current version and hides its older null rows', () => {
    const ghost = vrow('gone', 1, { isNull: true, isGhost: true, isDeleteMarker: true });
    const old = vrow('gone', 5, { isNull: true });
    const [g] = groups([ghost, old]);
    expect(g.current).toBeUndefined();
    expect(g.noncurrent).toEqual([]);
    expect(g.rows).toBe(2);
  });

  it('keeps a current delete marker as the current version', () => {
    const marker = vrow('m', 1, { isDeleteMarker: true });
    const v = vrow('m', 5);
    const [g] = groups([marker, v]);
    expect(g.current).toBe(marker);
    expect(g.noncurrent).toEqual([v]);
  });

  it('tells objects apart by bucket and directory too, not only by name', () => {
    const rows = [vrow('x', 1), vrow('x', 1, { parent: 'd/' }), vrow('x', 1, { bucketId: 'other' })];
    expect(groups(rows).map((g) => [g.bucketId.slice(0, 5), g.parent, g.name])).toEqual([
      ['2f1c8', '', 'x'],
      ['2f1c8', 'd/', 'x'],
      ['other', '', 'x'],
    ]);
  });
});
