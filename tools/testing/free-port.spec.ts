import { createServer } from 'net';
import { freePort } from './free-port';

describe('freePort', () => {
  it('returns a port of 127.0.0.1 that a server can listen on at once', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('never returns a port something listens on', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const taken = (busy.address() as { port: number }).port;
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    expect(ports).not.toContain(taken);
    await new Promise<void>((resolve) => busy.close(() => resolve()));
  });
});
