import { LifecycleConfiguration } from './configuration';
import { evaluateUpload, uploadAbortDue } from './evaluate-upload';
import { parseLifecycleXml } from './parse-lifecycle';
import { AWS_TIMING, debugTiming } from './timing';

const at = (iso: string) => Date.parse(iso);

const abortRule = (id: string, days: number, filter = '<Filter/>', status = 'Enabled') =>
  `<Rule><ID>${id}</ID>${filter}<Status>${status}</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>${days}</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>`;

const lifecycle = (...rules: string[]): LifecycleConfiguration =>
  parseLifecycleXml(`<LifecycleConfiguration>${rules.join('')}</LifecycleConfiguration>`);

describe(evaluateUpload.name, () => {
  const sut = evaluateUpload;
  const config = lifecycle(
    abortRule('slow', 7),
    abortRule('fast', 2, '<Filter><Prefix>test1/</Prefix></Filter>'),
    abortRule('off', 1, '<Filter/>', 'Disabled'),
  );
  const upload = { key: 'test1/big.bin', initiated: at('2026-09-29T10:15:00Z') };

  it('aborts after DaysAfterInitiation, rounded up to midnight UTC, under the earliest rule', () => {
    expect(sut(config, upload, at('2026-10-01T23:59:59Z'), AWS_TIMING)).toBeUndefined();
    expect(sut(config, upload, at('2026-10-02T00:00:00Z'), AWS_TIMING)).toEqual({
      kind: 'abort-upload',
      ruleId: 'fast',
      reason: 'abort-incomplete-multipart-upload',
      dueAt: new Date('2026-10-02T00:00:00Z'),
    });
  });

  it('selects uploads by prefix only, and ignores disabled rules', () => {
    const other = { key: 'test2/x', initiated: upload.initiated };
    expect(sut(config, other, at('2026-10-05T00:00:00Z'), AWS_TIMING)).toBeUndefined();
    expect(sut(config, other, at('2026-10-07T00:00:00Z'), AWS_TIMING)).toMatchObject({ ruleId: 'slow' });
  });

  it('counts plain elapsed debug days', () => {
    const timing = debugTiming(1000);
    const initiated = at('2026-09-29T10:15:00.500Z');
    expect(sut(config, { ...upload, initiated }, initiated + 1999, timing)).toBeUndefined();
    expect(
      sut(config, { ...upload, initiated: new Date(initiated) }, initiated + 2000, timing),
    ).toMatchObject({ ruleId: 'fast' });
  });

  it('never selects an upload by a size predicate, which uploads do not have', () => {
    const sized = [{ ...config.rules[0], filter: { tags: [], objectSizeLessThan: 10 } }];
    expect(sut(sized, upload, at('2030-01-01T00:00:00Z'), AWS_TIMING)).toBeUndefined();
  });

  it('does nothing without an abort rule', () => {
    const none = lifecycle(
      '<Rule><ID>e</ID><Filter/><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>',
    );
    expect(sut(none, upload, at('2030-01-01T00:00:00Z'), AWS_TIMING)).toBeUndefined();
  });
});

describe(uploadAbortDue.name, () => {
  it('tells the abort date before it comes (x-amz-abort-date)', () => {
    const config = lifecycle(abortRule('week', 7));
    expect(
      uploadAbortDue(config, { key: 'a', initiated: at('2026-01-01T08:00:00Z') }, AWS_TIMING),
    ).toMatchObject({
      ruleId: 'week',
      dueAt: new Date('2026-01-09T00:00:00Z'),
    });
  });
});
