/** The gateway bench's scenarios, one file each; `runScenario` picks one by name. */
import { Scenario } from '../lib/args';
import { ScenarioResult } from '../lib/report';
import { Bench, Target } from '../harness/bench';
import { large } from './large';
import { memory } from './memory';
import { small } from './small';

const SCENARIOS: Record<Scenario, (bench: Bench, t: Target) => Promise<ScenarioResult>> = {
  small,
  large,
  memory,
};

/** Runs the scenario `name` against `t`; its result holds the measurements, checks and notes. */
export function runScenario(bench: Bench, name: Scenario, t: Target): Promise<ScenarioResult> {
  return SCENARIOS[name](bench, t);
}
