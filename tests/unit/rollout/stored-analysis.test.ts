// The stored analysis JSON is versioned: what the poller writes today reads back as the analysis it computed,
// one stored before the version (the analysis's old field names) is upgraded, and anything else is refused.
import { describe, expect, it } from 'vitest';
import { StoredDataInvalidError } from '@/lib/errors';
import { analyzeCycle } from '@/lib/rollout/analyze';
import { parseStoredAnalysisJson } from '@/lib/schemas/stored';
import { ANALYSIS_VERSION, storedAnalysisOf } from '@/lib/schemas/stored-analysis';
import { cycleInput, modernVerdict, legacyVerdict, node, unavailableVerdict } from './verdict-factory';

const roundTrip = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe('the stored analysis', () => {
  it('is written with its version and read back as the analysis computed, at the row’s time', () => {
    const a = analyzeCycle(
      cycleInput({
        nodes: [
          node('a', modernVerdict()),
          node('b', legacyVerdict()),
          node('c', unavailableVerdict('refused')),
        ],
      }),
    );
    const stored = storedAnalysisOf(a);
    expect(stored.v).toBe(ANALYSIS_VERSION);
    expect(stored).not.toHaveProperty('snapshot');
    const { snapshot: _snapshot, ...fields } = a;
    expect(parseStoredAnalysisJson(roundTrip(stored), 77)).toEqual({ ...fields, analyzedAt: 77 });
  });

  it('upgrades one stored before the version: the API names, the fields it lacked at their defaults', () => {
    const v1 = {
      balancerId: 'bal_1',
      at: 1_000,
      state: 'uniform',
      severity: null,
      partition: [],
      degraded: [{ nodeId: 'nod_c', url: 'http://c/mcp', reason: 'refused', anomaly: null }],
      unavailableSamples: [],
      isDegraded: true,
      flapping: [],
      cacheHazard: {
        maxTtlMs: null,
        availableSamples: 0,
        contradictingSamples: 0,
        contradictingShare: null,
        differingSamples: 0,
      },
      gates: [],
      window: null,
      rolling: false,
      holdAlerts: false,
      displayStatus: 'degraded',
      counts: { nodes: 1, availableNodes: 0, samples: 0, availableSamples: 0 },
      regions: [
        {
          region: 'default',
          at: 900,
          state: 'uniform',
          severity: null,
          displayStatus: 'degraded',
          keys: [],
          isDegraded: true,
          counts: { nodes: 1, availableNodes: 0, samples: 0, availableSamples: 0 },
        },
      ],
    };
    expect(parseStoredAnalysisJson(v1, 2_000, new Map([['default', 1_500]]))).toEqual({
      balancerId: 'bal_1',
      analyzedAt: 2_000,
      status: 'uniform',
      severity: null,
      displayStatus: 'degraded',
      degraded: true,
      degradedNodes: [
        { nodeId: 'nod_c', url: 'http://c/mcp', reason: 'refused', anomaly: null, authGated: false },
      ],
      unavailableSamples: [],
      unplacedSamples: 0,
      reasons: [],
      partition: [],
      flapping: [],
      cacheHazard: { ...v1.cacheHazard, catalogTtlMs: null },
      gates: [],
      window: null,
      rolling: false,
      holdAlerts: false,
      counts: v1.counts,
      regionSplit: false,
      regions: [
        {
          region: 'default',
          analyzedAt: 1_500,
          status: 'uniform',
          severity: null,
          displayStatus: 'degraded',
          keys: [],
          degraded: true,
          counts: v1.counts,
        },
      ],
      regionPartition: [],
      missingRegions: [],
    });
  });

  it('refuses a version it does not know, and a current one with an old field name', () => {
    const a = storedAnalysisOf(analyzeCycle(cycleInput({ nodes: [node('a', modernVerdict())] })));
    expect(() => parseStoredAnalysisJson(roundTrip({ ...a, v: 3 }), 1)).toThrow(StoredDataInvalidError);
    const { status, ...rest } = a;
    expect(() => parseStoredAnalysisJson(roundTrip({ ...rest, state: status }), 1)).toThrow(
      StoredDataInvalidError,
    );
  });
});
