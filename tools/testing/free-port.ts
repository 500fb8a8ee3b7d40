import { createServer, type AddressInfo } from 'net';

/**
 * A TCP port of 127.0.0.1 that nothing listens on now, chosen by the kernel (bind to port 0).
 * For a process a test starts: a port drawn at random from a fixed range can be one the test
 * stack or another app of the test already listens on.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
