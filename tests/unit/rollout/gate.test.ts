import { describe, expect, it } from 'vitest';
import {
  evaluateGate,
  judgeGate,
  RolloutInputError,
  type GateState,
  type NodeObservation,
} from '@/lib/rollout';
import {
  LEGACY,
  MODERN,
  dualVerdict,
  legacyVerdict,
  modernVerdict,
  node as observed,
  unavailableVerdict,
} from './verdict-factory';

/** A node named as its id: the reasons below name nodes by name. */
const node = (id: string, verdict: Parameters<typeof observed>[1]): NodeObservation => ({
  ...observed(id, verdict),
  name: id,
});

describe('evaluateGate', () => {
  it.each<{ name: string; nodes: NodeObservation[]; revision: string; ready: boolean; reasons: string[] }>([
    {
      name: 'every node available with the same set containing the revision is ready',
      nodes: [node('a', modernVerdict()), node('b', modernVerdict()), node('c', modernVerdict())],
      revision: MODERN,
      ready: true,
      reasons: [],
    },
    {
      name: 'the same set in another order is the same set',
      nodes: [node('a', dualVerdict({ supported: [LEGACY, MODERN] })), node('b', dualVerdict())],
      revision: MODERN,
      ready: true,
      reasons: [],
    },
    {
      name: 'a uniform legacy fleet is ready for its legacy revision only',
      nodes: [node('a', legacyVerdict()), node('b', legacyVerdict())],
      revision: LEGACY,
      ready: true,
      reasons: [],
    },
    {
      name: 'an auth-gated node is named apart from the down ones: its era cannot be judged',
      nodes: [
        node('a', modernVerdict()),
        node('b', unavailableVerdict('auth_required')),
        node('c', unavailableVerdict('timeout')),
        node('d', unavailableVerdict('oauth_token_failed: invalid_client')),
      ],
      revision: MODERN,
      ready: false,
      reasons: [
        '1 node unavailable: c (timeout)',
        'cannot judge 2 auth-gated nodes: b (auth_required), d (oauth_token_failed: invalid_client)',
      ],
    },
    {
      name: 'no nodes is never ready',
      nodes: [],
      revision: MODERN,
      ready: false,
      reasons: ['no nodes to check'],
    },
    {
      name: 'an unavailable node blocks the gate, named with its reason',
      nodes: [node('a', modernVerdict()), node('b', unavailableVerdict('timeout'))],
      revision: MODERN,
      ready: false,
      reasons: ['1 node unavailable: b (timeout)'],
    },
    {
      name: 'different served sets block the gate, each set with its nodes',
      nodes: [node('a', modernVerdict()), node('b', dualVerdict()), node('c', modernVerdict())],
      revision: MODERN,
      ready: false,
      reasons: ['nodes present 2 different served sets: [2026-07-28] on a, c; [2026-07-28, 2025-11-25] on b'],
    },
    {
      name: 'a uniform set without the revision says so',
      nodes: [node('a', legacyVerdict()), node('b', legacyVerdict())],
      revision: MODERN,
      ready: false,
      reasons: ['the served set [2025-11-25] does not include 2026-07-28'],
    },
    {
      name: 'mid-rollout: unavailable, differing, and not serving, all named',
      nodes: [
        node('a', modernVerdict()),
        node('b', legacyVerdict()),
        node('c', legacyVerdict()),
        node('d', unavailableVerdict('refused')),
        node('e', unavailableVerdict('http_5xx')),
      ],
      revision: MODERN,
      ready: false,
      reasons: [
        '2 nodes unavailable: d (refused), e (http_5xx)',
        'nodes present 2 different served sets: [2025-11-25] on b, c; [2026-07-28] on a',
        '2026-07-28 is not served by b, c',
      ],
    },
    {
      name: 'every node down: the unavailable list is the whole reason',
      nodes: [node('a', unavailableVerdict('refused'))],
      revision: MODERN,
      ready: false,
      reasons: ['1 node unavailable: a (refused)'],
    },
  ])('$name', ({ nodes, revision, ready, reasons }) => {
    const judged = evaluateGate(nodes, revision);
    expect(judged).toEqual({ ready, reasons, details: expect.any(Array) });
    expect(judged.details.map((d) => d.text)).toEqual(reasons);
  });

  it('shortens long node lists so reasons stay readable', () => {
    const nodes = [
      ...Array.from({ length: 12 }, (_, i) =>
        node(`n${String(i).padStart(2, '0')}`, unavailableVerdict('timeout')),
      ),
      node('ok', modernVerdict()),
    ];
    const { ready, reasons } = evaluateGate(nodes, MODERN);
    expect(ready).toBe(false);
    expect(reasons).toEqual([
      '12 nodes unavailable: n00 (timeout), n01 (timeout), n02 (timeout), n03 (timeout), n04 (timeout), ' +
        'n05 (timeout), n06 (timeout), n07 (timeout), n08 (timeout), n09 (timeout) and 2 more',
    ]);
  });

  it('names at most five differing sets, largest first', () => {
    const nodes = Array.from({ length: 7 }, (_, i) =>
      node(`n${i}`, modernVerdict({ supported: [MODERN, `2020-01-0${i + 1}`] })),
    );
    nodes.push(node('n7', modernVerdict({ supported: [MODERN, '2020-01-01'] })));
    const { reasons } = evaluateGate(nodes, MODERN);
    expect(reasons).toEqual([
      'nodes present 7 different served sets: [2026-07-28, 2020-01-01] on n0, n7; [2026-07-28, 2020-01-02] on n1; ' +
        '[2026-07-28, 2020-01-03] on n2; [2026-07-28, 2020-01-04] on n3; [2026-07-28, 2020-01-05] on n4; and 2 more sets',
    ]);
  });

  it.each(['', '   '])('refuses an empty revision (%j)', (revision) => {
    expect(() => evaluateGate([node('a', modernVerdict())], revision)).toThrow(RolloutInputError);
    expect(() => evaluateGate([node('a', modernVerdict())], revision)).toThrow(
      /revision must be a non-empty string/,
    );
  });
});

describe('judgeGate', () => {
  it.each<{
    name: string;
    nodes: NodeObservation[];
    unprobed?: string[];
    state: GateState;
    reasons: string[];
  }>([
    {
      name: 'every node ready is open',
      nodes: [node('a', modernVerdict()), node('b', modernVerdict())],
      state: 'open',
      reasons: [],
    },
    {
      name: 'readable nodes that disagree close it, whatever the auth-gated ones say',
      nodes: [
        node('a', modernVerdict()),
        node('b', legacyVerdict()),
        node('c', unavailableVerdict('auth_required')),
      ],
      state: 'closed',
      reasons: [
        `nodes present 2 different served sets: [${LEGACY}] on b; [${MODERN}] on a`,
        `${MODERN} is not served by b`,
        'cannot judge 1 auth-gated node: c (auth_required)',
      ],
    },
    {
      name: 'an auth-gated node beside ready ones cannot be judged, and is not called down',
      nodes: [node('a', modernVerdict()), node('b', unavailableVerdict('auth_failed'))],
      state: 'cannot_judge',
      reasons: ['cannot judge 1 auth-gated node: b (auth_failed)'],
    },
    {
      name: 'only auth-gated nodes cannot be judged',
      nodes: [node('a', unavailableVerdict('auth_required')), node('b', unavailableVerdict('auth_required'))],
      state: 'cannot_judge',
      reasons: ['cannot judge 2 auth-gated nodes: a (auth_required), b (auth_required)'],
    },
    {
      name: 'a node down for another reason closes it',
      nodes: [node('a', modernVerdict()), node('b', unavailableVerdict('timeout'))],
      state: 'closed',
      reasons: ['1 node unavailable: b (timeout)'],
    },
    {
      name: 'a node not probed yet beside ready ones cannot be judged',
      nodes: [node('a', modernVerdict())],
      unprobed: ['z'],
      state: 'cannot_judge',
      reasons: ['not probed yet: z'],
    },
    {
      name: 'no probed node cannot be judged',
      nodes: [],
      unprobed: ['a', 'b'],
      state: 'cannot_judge',
      reasons: ['no probed nodes yet'],
    },
  ])('$name', ({ nodes, unprobed, state, reasons }) => {
    const judged = judgeGate(nodes, unprobed ?? [], MODERN);
    expect(judged).toEqual({ state, ready: state === 'open', reasons, details: expect.any(Array) });
    expect(judged.details.map((d) => d.text)).toEqual(reasons);
  });
});

describe('gate details', () => {
  it('names a node by its URL when it has no name, by its name when it has one', () => {
    const nodes = [
      observed('a', modernVerdict()),
      observed('b', unavailableVerdict('timeout')),
      { ...observed('c', unavailableVerdict('refused')), name: 'search-3' },
    ];
    expect(evaluateGate(nodes, MODERN).reasons).toEqual([
      '2 nodes unavailable: http://127.0.0.1/b (timeout), search-3 (refused)',
    ]);
  });

  it('gives each reason the count and filter of the nodes it names', () => {
    const nodes = [
      node('a', modernVerdict()),
      node('b', legacyVerdict()),
      node('c', legacyVerdict()),
      node('d', unavailableVerdict('refused')),
      node('e', unavailableVerdict('auth_required')),
    ];
    expect(judgeGate(nodes, ['z'], MODERN).details).toEqual([
      {
        text: '1 node unavailable: d (refused)',
        nodes: { count: 1, filter: { availability: 'unavailable' } },
      },
      {
        text: 'nodes present 2 different served sets: [2025-11-25] on b, c; [2026-07-28] on a',
        nodes: null,
      },
      { text: '2026-07-28 is not served by b, c', nodes: { count: 2, filter: { lacks: MODERN } } },
      {
        text: 'cannot judge 1 auth-gated node: e (auth_required)',
        nodes: { count: 1, filter: { availability: 'auth-gated' } },
      },
      { text: 'not probed yet: z', nodes: null },
    ]);
  });

  it('counts every node a long reason shortens', () => {
    const nodes = Array.from({ length: 30 }, (_, i) => node(`n${i}`, legacyVerdict()));
    const [detail] = evaluateGate(nodes, MODERN).details;
    expect(detail?.text).toBe('the served set [2025-11-25] does not include 2026-07-28');
    expect(detail?.nodes).toEqual({ count: 30, filter: { lacks: MODERN } });
  });
});
