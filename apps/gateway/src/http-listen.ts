import type { Server } from 'http';

/** Starts `server` on host:port; rejects when the port cannot be bound. */
export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
}

/** Stops accepting connections, closes idle ones, and resolves once in-flight requests have ended. */
export function closeGracefully(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
