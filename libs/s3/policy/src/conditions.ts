import { ipInCidr } from './ip';
import type { ConditionBlock } from './model';
import { substituteVariables } from './variables';
import { wildcardMatch } from './wildcard';

type Compare = (policyValue: string, requestValue: string) => boolean;

const num = (s: string) => (/^\s*-?\d+(\.\d+)?\s*$/.test(s) ? Number(s) : NaN);
/** IAM dates: ISO 8601 or epoch seconds. */
const date = (s: string) => (/^\d+$/.test(s) ? Number(s) * 1000 : Date.parse(s));
const byNumber = (test: (request: number, policy: number) => boolean): Compare => (p, r) => {
  const [pn, rn] = [num(p), num(r)];
  return !Number.isNaN(pn) && !Number.isNaN(rn) && test(rn, pn);
};
const byDate = (test: (request: number, policy: number) => boolean): Compare => (p, r) => {
  const [pd, rd] = [date(p), date(r)];
  return !Number.isNaN(pd) && !Number.isNaN(rd) && test(rd, pd);
};

/** Each base operator: how one policy value compares with one request value, and whether it is a negation. */
const OPERATORS: Record<string, { compare: Compare; negated: boolean }> = {};
const define = (name: string, compare: Compare, negatedName?: string) => {
  OPERATORS[name] = { compare, negated: false };
  if (negatedName) OPERATORS[negatedName] = { compare, negated: true };
};
define('StringEquals', (p, r) => p === r, 'StringNotEquals');
define('StringEqualsIgnoreCase', (p, r) => p.toLowerCase() === r.toLowerCase(), 'StringNotEqualsIgnoreCase');
define('StringLike', (p, r) => wildcardMatch(p, r), 'StringNotLike');
define('NumericEquals', byNumber((r, p) => r === p), 'NumericNotEquals');
define('NumericLessThan', byNumber((r, p) => r < p));
define('NumericLessThanEquals', byNumber((r, p) => r <= p));
define('NumericGreaterThan', byNumber((r, p) => r > p));
define('NumericGreaterThanEquals', byNumber((r, p) => r >= p));
define('DateEquals', byDate((r, p) => r === p), 'DateNotEquals');
define('DateLessThan', byDate((r, p) => r < p));
define('DateLessThanEquals', byDate((r, p) => r <= p));
define('DateGreaterThan', byDate((r, p) => r > p));
define('DateGreaterThanEquals', byDate((r, p) => r >= p));
define('Bool', (p, r) => p.toLowerCase() === r.toLowerCase());
define('BinaryEquals', (p, r) => p === r);
define('IpAddress', (p, r) => ipInCidr(r, p), 'NotIpAddress');
define('ArnEquals', (p, r) => wildcardMatch(p, r), 'ArnNotEquals');
define('ArnLike', (p, r) => wildcardMatch(p, r), 'ArnNotLike');

/** An operator name split into its set qualifier, base operator and IfExists suffix. */
export interface ParsedOperator {
  set?: 'ForAnyValue' | 'ForAllValues';
  base: string;
  ifExists: boolean;
}

/** Splits `ForAllValues:StringLikeIfExists` and the like; undefined for an operator IAM does not have. */
export function parseOperator(name: string): ParsedOperator | undefined {
  let rest = name;
  let set: ParsedOperator['set'];
  const colon = rest.indexOf(':');
  if (colon >= 0) {
    const qualifier = rest.slice(0, colon);
    if (qualifier !== 'ForAnyValue' && qualifier !== 'ForAllValues') return undefined;
    set = qualifier;
    rest = rest.slice(colon + 1);
  }
  const ifExists = rest.endsWith('IfExists');
  const base = ifExists ? rest.slice(0, -'IfExists'.length) : rest;
  if (base === 'Null') return ifExists || set ? undefined : { base, ifExists: false };
  return OPERATORS[base] ? { set, base, ifExists } : undefined;
}

/**
 * One operator on one key (IAM's rules, https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html
 * and reference_policies_condition-single-vs-multi-valued-context-keys.html): the policy's values
 * are OR-ed; a key absent from the request fails a positive operator, passes a negated one, passes
 * with IfExists, passes ForAllValues and fails ForAnyValue; Null tests the key's presence.
 */
function keyMatches(op: ParsedOperator, policyValues: string[], requestValues: string[] | undefined): boolean {
  const absent = requestValues === undefined || requestValues.length === 0;
  if (op.base === 'Null') return (policyValues[0]?.toLowerCase() === 'true') === absent;
  const { compare, negated } = OPERATORS[op.base];
  if (absent) {
    if (op.ifExists || op.set === 'ForAllValues') return true;
    if (op.set === 'ForAnyValue') return false;
    return negated;
  }
  const one = (rv: string) => {
    const hit = policyValues.some((pv) => compare(pv, rv));
    return negated ? !hit : hit;
  };
  if (op.set === 'ForAllValues') return requestValues.every(one);
  if (op.set === 'ForAnyValue') return requestValues.some(one);
  return negated ? requestValues.every(one) : requestValues.some(one);
}

/** Whether a statement's Condition holds: every operator, every key of each (AND), any value of a key (OR). */
export function conditionHolds(block: ConditionBlock, context: Record<string, string[]>): boolean {
  for (const [operator, keys] of Object.entries(block)) {
    const op = parseOperator(operator);
    if (!op) return false;
    for (const [key, values] of Object.entries(keys)) {
      const policyValues = values.map((v) => substituteVariables(v, context)).filter((v): v is string => v !== undefined);
      if (!keyMatches(op, policyValues, context[key.toLowerCase()])) return false;
    }
  }
  return true;
}
