/** `large`: big objects, few clients; MiB/s each way against the target. */
import { ScenarioResult, TARGETS } from '../lib/report';
import { sizeLabel } from '../lib/units';
import { Bench, errorCheck, Target } from '../harness/bench';
import { putGetPhases } from '../harness/phases';

export async function large(bench: Bench, t: Target): Promise<ScenarioResult> {
  const a = bench.args;
  const s = bench.newScenario(
    'large',
    `large — ${sizeLabel(a.largeSize)} objects, ${a.largeConcurrency} concurrent clients`,
  );
  const ms = await putGetPhases(bench, t, s, {
    name: 'large',
    size: a.largeSize,
    concurrency: a.largeConcurrency,
    durationMs: a.largeDurationMs,
    objects: a.largeObjects,
  });
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
