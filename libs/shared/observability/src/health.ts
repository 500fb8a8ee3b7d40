/** One dependency whose failure makes the app not ready (Cassandra session, Kafka client, ...). */
export interface HealthIndicator {
  readonly name: string;
  /** Resolves when the dependency works; rejects (or resolves false) when it does not. */
  check(): Promise<boolean>;
}

export const HEALTH_INDICATORS = Symbol('HEALTH_INDICATORS');

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, { ok: boolean; error?: string; durationMs: number }>;
}

/** Runs every indicator with a deadline; ready only if all pass. */
export async function checkReadiness(
  indicators: HealthIndicator[],
  timeoutMs = 2000,
): Promise<ReadinessReport> {
  const entries = await Promise.all(
    indicators.map(async (indicator) => {
      const started = Date.now();
      let timer: NodeJS.Timeout | undefined;
      try {
        const ok = await Promise.race([
          indicator.check(),
          new Promise<boolean>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
        return [indicator.name, { ok: ok === true, durationMs: Date.now() - started }] as const;
      } catch (e) {
        return [
          indicator.name,
          { ok: false, error: (e as Error).message, durationMs: Date.now() - started },
        ] as const;
      } finally {
        if (timer) clearTimeout(timer);
      }
    }),
  );
  const checks = Object.fromEntries(entries);
  return { ready: entries.every(([, c]) => c.ok), checks };
}
