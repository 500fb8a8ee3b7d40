import { parseBucketReport, renderBucketReport } from './bucket-report.command';
import { formatBytes as humanBytes } from './sizes';

describe(parseBucketReport.name, () => {
  it('parses bucket report, its --json and --help, and refuses the rest', () => {
    expect(parseBucketReport(['user', 'list'])).toBeUndefined();
    expect(parseBucketReport(['bucket', 'report', 'my bucket'])).toEqual({ path: '/admin/buckets/my%20bucket/report', json: false });
    expect(parseBucketReport(['bucket', 'report', '--json', 'b'])).toEqual({ path: '/admin/buckets/b/report', json: true });
    expect(parseBucketReport(['bucket', 'report', '--help'])).toMatchObject({ help: expect.stringContaining('usage: bucket report') });
    expect(() => parseBucketReport(['bucket', 'report'])).toThrow('needs <bucket>');
    expect(() => parseBucketReport(['bucket', 'report', 'b', '--yaml'])).toThrow('unknown option --yaml');
  });
});

describe(renderBucketReport.name, () => {
  it('prints sizes as people read them, the tops and the anomalies', () => {
    expect([humanBytes(512), humanBytes(10 * 1024 * 1024), humanBytes(1536 * 1024 * 1024), humanBytes(-2048)]).toEqual(['512 B', '10 MiB', '1.5 GiB', '-2 KiB']);
    const text = renderBucketReport({
      bucket: 'b',
      bucketId: 'id',
      snapshot: { cut: '2026-12-01T10:00:00.000Z', combinedAt: '2026-12-01T10:40:00.000Z', ageSeconds: 90, hostSnapshots: 6 },
      figures: {
        bytes: 10 * 1024 * 1024,
        objects: 3,
        versions: 4,
        deleteMarkers: 1,
        classes: { STANDARD: { current: 1024, noncurrent: 0 } },
        uploads: 0,
        uploadBytes: 0,
        topBySize: [{ name: 'a/big', n: 5 * 1024 * 1024 }],
        topByVersions: [],
        topDirectories: [{ name: '', n: 2 }],
        topBlocks: [{ name: 'blk-shared', n: 12, size: 64 * 1024, buckets: { id: 9, other: 3 } }],
        anomalies: { overdueVersions: 7, objectsOver100Versions: 0, directoriesOver100k: 0 },
      },
    });
    expect(text).toContain('10 MiB');
    expect(text).toMatch(/a\/big\s+5 MiB/);
    expect(text).toMatch(/overdue versions\s+7/);
    expect(text).toMatch(/^\/\s+2$/m);
    expect(text).toMatch(/^blk-shared\s+12\s+9\s+64 KiB\s+2$/m);
    expect(renderBucketReport({ bucket: 'b', bucketId: 'id', snapshot: null, figures: null })).toContain('no combined snapshot yet');
  });
});
