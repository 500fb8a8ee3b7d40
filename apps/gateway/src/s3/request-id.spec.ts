import { nextRequestId } from './s3-server';

describe(nextRequestId.name, () => {
  it('gives S3-shaped ids (16 upper-case hex digits), all different, sharing the process prefix', () => {
    const ids = Array.from({ length: 10_000 }, () => nextRequestId());
    for (const id of ids) expect(id).toMatch(/^[0-9A-F]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(0, 6))).size).toBe(1);
  });
});
