import { GiveUpWaiting, waitFor } from './stack-env';

describe(waitFor.name, () => {
  it('returns the first defined value, retrying errors meanwhile', async () => {
    let calls = 0;
    const v = await waitFor('three calls', async () => {
      calls++;
      if (calls === 1) throw new Error('not yet');
      return calls === 3 ? 'done' : undefined;
    }, 5000, 1);
    expect(v).toBe('done');
    expect(calls).toBe(3);
  });

  it('fails after its deadline naming what it waited for and the last error', async () => {
    await expect(waitFor('never', async () => {
      throw new Error('still down');
    }, 50, 5)).rejects.toThrow(/timed out after 50 ms waiting for never: still down/);
  });

  it('gives up at once when the probe says waiting cannot help', async () => {
    let calls = 0;
    await expect(waitFor('a dead process', async () => {
      calls++;
      throw new GiveUpWaiting('it exited (1)');
    }, 60_000, 5)).rejects.toThrow(/gave up waiting for a dead process: it exited \(1\)/);
    expect(calls).toBe(1);
  });
});
