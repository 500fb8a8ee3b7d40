/** `large`: big objects, few clients; MiB/s each way against the target. */
import { Measurement, ScenarioResult, TARGETS } from '../lib/report';
import { sizeLabel } from '../lib/units';
import { Bench, errorCheck, Target } from '../harness/bench';
import { sdkPhases, warpPhase } from '../harness/phases';

export async function large(bench: Bench, t: Target): Promise<ScenarioResult> {
  const a = bench.args;
  const s = bench.newScenario(
    'large',
    `large — ${sizeLabel(a.largeSize)} objects, ${a.largeConcurrency} concurrent clients`,
  );
  const ms: Measurement[] = [];
  if (bench.useWarp()) {
    const put = await warpPhase(bench, t, s, {
      op: 'put',
      bucket: bench.bucket('large-put'),
      size: a.largeSize,
      concurrent: a.largeConcurrency,
      durationMs: a.largeDurationMs,
    });
    if (put) ms.push(put);
    const get = await warpPhase(bench, t, s, {
      op: 'get',
      bucket: bench.bucket('large-get'),
      size: a.largeSize,
      concurrent: a.largeConcurrency,
      durationMs: a.largeDurationMs,
      objects: a.largeObjects,
    });
    if (get) ms.push(get);
  }
  if (bench.useSdk())
    ms.push(
      ...(await sdkPhases(bench, t, s, {
        bucket: bench.bucket('large-sdk'),
        size: a.largeSize,
        concurrency: a.largeConcurrency,
        durationMs: a.largeDurationMs,
      })),
    );
  s.measurements = ms;
  for (const m of ms) {
    s.checks.push({
      what: `${m.op} MiB/s (${m.client})`,
      target: `≥ ${TARGETS.largeMiBPerSec}`,
      measured: `${m.mibPerSec.toFixed(1)} (${m.objPerSec.toFixed(2)} obj/s, p50 ${m.latencyMs?.p50.toFixed(0)} ms)`,
      pass: m.mibPerSec >= TARGETS.largeMiBPerSec,
    });
    s.checks.push(errorCheck(m));
  }
  s.notes.push(
    ...bench.commonNotes(),
    `Each object is one PUT (no multipart) of ${sizeLabel(a.largeSize)}; warp get first uploads ${a.largeObjects} objects (not measured).`,
  );
  return s;
}
