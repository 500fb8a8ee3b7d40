import { checkReadiness, HealthIndicator } from './health';

const indicator = (name: string, check: () => Promise<boolean>): HealthIndicator => ({ name, check });

describe(checkReadiness.name, () => {
  it('is ready only when every indicator passes', async () => {
    const sut = await checkReadiness([indicator('a', async () => true), indicator('b', async () => true)]);
    expect(sut.ready).toBe(true);
    expect(Object.keys(sut.checks)).toEqual(['a', 'b']);
  });

  it('reports a failing indicator with its error', async () => {
    const sut = await checkReadiness([
      indicator('cassandra', async () => {
        throw new Error('connection refused');
      }),
      indicator('kafka', async () => true),
    ]);
    expect(sut.ready).toBe(false);
    expect(sut.checks['cassandra']).toMatchObject({ ok: false, error: 'connection refused' });
    expect(sut.checks['kafka'].ok).toBe(true);
  });

  it('fails an indicator that does not answer before the deadline', async () => {
    const sut = await checkReadiness([indicator('slow', () => new Promise<boolean>(() => undefined))], 50);
    expect(sut.ready).toBe(false);
    expect(sut.checks['slow'].error).toContain('timed out');
  });
});
