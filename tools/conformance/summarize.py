#!/usr/bin/env python3
"""Summarizes a run's junit files (one or several chunks): pass rate and every failure with the first line of its reason (Markdown)."""
import sys
import xml.etree.ElementTree as ET

cases = [c for path in sys.argv[1:] for c in ET.parse(path).getroot().iter('testcase')]
failed, skipped = [], 0
for c in cases:
    problem = c.find('failure') if c.find('failure') is not None else c.find('error')
    if c.find('skipped') is not None:
        skipped += 1
    elif problem is not None:
        reason = (problem.get('message') or problem.text or '').strip().splitlines()
        failed.append((c.get('classname', '').split('.')[-1], c.get('name'), (reason[0] if reason else '')[:160]))
ran = len(cases) - skipped
print(f'{ran - len(failed)} of {ran} passed ({100 * (ran - len(failed)) / max(ran, 1):.1f} %), {skipped} skipped\n')
print('| file | test | reason |\n| --- | --- | --- |')
for f, name, reason in sorted(failed):
    print(f"| {f} | `{name}` | {reason.replace('|', '/')} |")
