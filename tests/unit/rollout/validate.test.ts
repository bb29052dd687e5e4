import { describe, expect, it } from 'vitest';
import type { Verdict } from '@/lib/probe/types';
import { analyzeCycle, RolloutInputError, type CycleInput } from '@/lib/rollout';
import { MODERN, T0, cycleInput, modernVerdict, node, sample } from './verdict-factory';

function issuesOf(input: CycleInput): string[] {
  try {
    analyzeCycle(input);
  } catch (err) {
    if (err instanceof RolloutInputError) return err.issues;
    throw err;
  }
  throw new Error('expected the input to be refused');
}

const window = { id: 'w', target: { era: 'modern' as const }, openedAt: T0, deadline: T0 + 60_000 };
const broken = (over: Record<string, unknown>) => ({ ...modernVerdict(), ...over }) as unknown as Verdict;

describe('analyzeCycle refuses bad input with every problem named', () => {
  it.each<{ name: string; input: CycleInput; issues: string[] }>([
    {
      name: 'an empty balancer id',
      input: cycleInput({ balancerId: ' ' }),
      issues: ['balancerId must be a non-empty string'],
    },
    {
      name: 'a non-finite instant',
      input: cycleInput({ at: Number.POSITIVE_INFINITY }),
      issues: ['at must be a finite epoch-ms number'],
    },
    {
      name: 'a node id used twice',
      input: cycleInput({ nodes: [node('a', modernVerdict()), node('a', modernVerdict())] }),
      issues: ['nodes[1].nodeId "a" appears more than once'],
    },
    {
      name: 'an empty node id',
      input: cycleInput({ nodes: [node('', modernVerdict())] }),
      issues: ['nodes[0].nodeId must be a non-empty string'],
    },
    {
      name: 'an unknown client era',
      input: cycleInput({ nodes: [node('a', broken({ verdict: 'maybe' }))] }),
      issues: ['nodes[0].verdict.verdict must be one of modern, legacy, unavailable'],
    },
    {
      name: 'an unknown served class on a sample',
      input: cycleInput({ samples: [sample(broken({ servedEras: 'both' }))] }),
      issues: ['samples[0].verdict.servedEras must be one of modern-only, dual-era, legacy-only, unknown'],
    },
    {
      name: 'a supported list that is not strings',
      input: cycleInput({ nodes: [node('a', broken({ supported: [20260728] }))] }),
      issues: ['nodes[0].verdict.supported must be an array of revision strings'],
    },
    {
      name: 'change times that are not numbers',
      input: cycleInput({ nodes: [{ ...node('a', modernVerdict()), recentChanges: [Number.NaN] }] }),
      issues: ['nodes[0].recentChanges must be an array of epoch-ms numbers'],
    },
    {
      name: 'an empty sample node id',
      input: cycleInput({ samples: [sample(modernVerdict(), '')] }),
      issues: ['samples[0].nodeId must be null or a non-empty string'],
    },
    {
      name: 'a deadline before the window opens',
      input: cycleInput({ window: { ...window, deadline: T0 - 1 } }),
      issues: ['window.deadline must be after window.openedAt'],
    },
    {
      name: 'a window without an id',
      input: cycleInput({ window: { ...window, id: '' } }),
      issues: ['window.id must be a non-empty string'],
    },
    {
      name: 'an empty target, which would match anything',
      input: cycleInput({ window: { ...window, target: {} } }),
      issues: [
        'window.target must name at least one of era, negotiatedVersion, servedEras, supportedIncludes, fingerprintKey',
      ],
    },
    {
      name: 'a target era that is not a client era',
      input: cycleInput({ window: { ...window, target: { era: 'unavailable' as 'modern' } } }),
      issues: ['window.target.era must be modern or legacy'],
    },
    {
      name: 'a blank target version',
      input: cycleInput({ window: { ...window, target: { negotiatedVersion: '' } } }),
      issues: ['window.target.negotiatedVersion must be a non-empty string'],
    },
    {
      name: 'an empty gate revision',
      input: cycleInput({ gateRevisions: [MODERN, ''] }),
      issues: ['gateRevisions must be an array of non-empty revision strings'],
    },
    {
      name: 'a negative or fractional flap threshold',
      input: cycleInput({ options: { flapThreshold: 1.5 } }),
      issues: ['options.flapThreshold must be a non-negative integer'],
    },
    {
      name: 'a zero flap window',
      input: cycleInput({ options: { flapWindowMs: 0 } }),
      issues: ['options.flapWindowMs must be a positive number of milliseconds'],
    },
    {
      name: 'a previous snapshot of another balancer',
      input: cycleInput({
        previous: analyzeCycle(cycleInput({ balancerId: 'other', nodes: [node('a', modernVerdict())] }))
          .snapshot,
      }),
      issues: ['previous snapshot belongs to balancer "other", not "bal-1"'],
    },
    {
      name: 'several problems at once',
      input: cycleInput({ balancerId: '', at: Number.NaN, options: { flapThreshold: -1 } }),
      issues: [
        'balancerId must be a non-empty string',
        'at must be a finite epoch-ms number',
        'options.flapThreshold must be a non-negative integer',
      ],
    },
  ])('$name', ({ input, issues }) => {
    expect(issuesOf(input)).toEqual(issues);
  });

  it('puts every issue in the message', () => {
    expect(() => analyzeCycle(cycleInput({ balancerId: '', gateRevisions: [''] }))).toThrow(
      'invalid rollout analysis input: balancerId must be a non-empty string; gateRevisions must be an array of non-empty revision strings',
    );
  });

  it('leaves the input untouched when it refuses it', () => {
    const input = cycleInput({
      nodes: [node('a', modernVerdict()), node('a', modernVerdict())],
      gateRevisions: [MODERN],
    });
    const before = JSON.stringify(input);
    expect(() => analyzeCycle(input)).toThrow(RolloutInputError);
    expect(JSON.stringify(input)).toBe(before);
  });
});
