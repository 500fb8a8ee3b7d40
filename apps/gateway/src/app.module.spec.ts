import { DynamicModule } from '@nestjs/common';
import { UsageDeltaModule, UsageDeltaPublisher } from '@ostore/queue/data-access';
import { NoopUsageRecorder, S3CoreModule, USAGE_RECORDER } from '@ostore/s3/core';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { AppModule } from './app.module';
import { loadGatewayConfig } from './config/gateway.config';

describe('AppModule.register: usage deltas', () => {
  const deps = { logger: new JsonLogger('test', 'silent'), metrics: new MetricsRegistry('test', false) };
  const wiring = (env: Record<string, string>) => {
    const root = AppModule.register(loadGatewayConfig(env), deps);
    const core = root.imports!.find((m) => (m as DynamicModule).module === S3CoreModule) as DynamicModule;
    return {
      usageModule: (core.imports ?? []).some((m) => (m as DynamicModule).module === UsageDeltaModule),
      recorder: core.providers!.find((p) => (p as { provide?: unknown }).provide === USAGE_RECORDER) as unknown as Record<string, unknown>,
    };
  };

  it('by default, the S3 core records size changes into the UsageDeltaPublisher', () => {
    expect(wiring({})).toMatchObject({ usageModule: true, recorder: { useExisting: UsageDeltaPublisher } });
  });

  it('USAGE_DELTAS=off: the core records nowhere', () => {
    const off = wiring({ USAGE_DELTAS: 'off' });
    expect(off.usageModule).toBe(false);
    expect(off.recorder.useValue).toBeInstanceOf(NoopUsageRecorder);
  });
});

describe('AppModule.register: lifecycle', () => {
  it('builds no LifecycleApplier: the gateway serves S3 only, the scheduler applies rules', () => {
    const root = AppModule.register(loadGatewayConfig({}), { logger: new JsonLogger('test', 'silent'), metrics: new MetricsRegistry('test', false) });
    const modules = (list: unknown[] | undefined): DynamicModule[] =>
      (list ?? []).flatMap((m) => ((m as DynamicModule).module ? [m as DynamicModule, ...modules((m as DynamicModule).imports)] : []));
    const providers = modules(root.imports).flatMap((m) => m.providers ?? []);
    expect(providers.map((p) => (p as { provide?: { name?: string } }).provide?.name)).not.toContain('LifecycleApplier');
    expect(providers.length).toBeGreaterThan(5);
  });
});
