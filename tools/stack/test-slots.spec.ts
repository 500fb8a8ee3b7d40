import { mkdtempSync, rmSync } from 'fs';
import { createServer, Server } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';

interface Slot {
  slot: number;
  stackDir: string;
  options: { cassandraPort: number; cassandraStoragePort: number; kafkaPort: number; kafkaControllerPort: number };
  release(): void;
}
const { claimTestSlot } = require('./test-slots.cjs') as {
  claimTestSlot(opts: { root: string; lockRoot: string }): Promise<Slot>;
};

const listen = (port: number) =>
  new Promise<Server>((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen({ host: '127.0.0.1', port }, () => done(s));
  });

describe('test stack slots', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ostore-slots-'));
  const opts = { root: join(dir, 'repo'), lockRoot: join(dir, 'locks') };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('never hands out the default ports, the ephemeral range or a stack dir outside .stack-test', async () => {
    const s = await claimTestSlot(opts);
    try {
      const o = s.options;
      for (const p of [o.cassandraPort, o.cassandraStoragePort, o.kafkaPort, o.kafkaControllerPort]) {
        expect([9042, 7000, 9092, 9093]).not.toContain(p);
        expect(p).toBeGreaterThanOrEqual(30000);
        expect(p).toBeLessThan(32768);
      }
      expect(s.stackDir).toBe(join(opts.root, '.stack-test', `slot${s.slot}`));
    } finally {
      s.release();
    }
  });

  it('gives a held slot to nobody else, and a released one again', async () => {
    const a = await claimTestSlot(opts);
    const b = await claimTestSlot(opts);
    expect(b.slot).not.toBe(a.slot);
    a.release();
    const c = await claimTestSlot(opts);
    expect(c.slot).toBe(a.slot);
    b.release();
    c.release();
  });

  it('skips a slot one of whose ports something else listens on', async () => {
    const a = await claimTestSlot(opts);
    a.release();
    const squatter = await listen(a.options.kafkaControllerPort);
    try {
      const b = await claimTestSlot(opts);
      expect(b.slot).not.toBe(a.slot);
      b.release();
    } finally {
      await new Promise((r) => squatter.close(r));
    }
  });
});
