// The node rows query's pure steps: what each filter selects, where nulls sort, and cursors that stay valid
// for values too long to carry (a cursor then names its row).
import { describe, expect, it } from 'vitest';
import { ValidationError } from '@/lib/errors';
import { NodeListQuery, matchesNodeFilter, pageNodeRows, type NodeFacts } from '@/lib/schemas/node-query';

function facts(i: number, over: Partial<NodeFacts> = {}): NodeFacts {
  return {
    nodeId: `nod_${String(i).padStart(3, '0')}`,
    name: `node-${i}`,
    url: `http://10.0.0.${i}:8080/mcp`,
    address: `10.0.0.${i}`,
    region: 'default',
    clientEra: 'modern',
    served: 'modern-only',
    groupKey: 'fp_a',
    availability: 'available',
    supported: ['2026-07-28'],
    probedAt: 1_000,
    latencyMs: 10,
    ...over,
  };
}

const query = (raw: Record<string, string> = {}) => NodeListQuery.parse(raw);

function pageAll(rows: NodeFacts[], raw: Record<string, string>): string[] {
  const all = rows.map((f) => ({ row: f.nodeId, facts: f }));
  const out: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i <= rows.length; i++) {
    const page = pageNodeRows(all, query({ ...raw, ...(cursor ? { cursor } : {}) }));
    out.push(...page.items);
    if (page.nextCursor === null) return out;
    cursor = page.nextCursor;
  }
  throw new Error('pages never ended');
}

describe('matchesNodeFilter', () => {
  it('lacks selects available nodes whose served set misses the revision, never unavailable ones', () => {
    const f = query({ lacks: '2026-07-28' });
    expect(matchesNodeFilter(facts(1, { supported: ['2025-11-25'] }), f)).toBe(true);
    expect(matchesNodeFilter(facts(2), f)).toBe(false);
    expect(matchesNodeFilter(facts(3, { availability: 'unavailable', supported: [] }), f)).toBe(false);
    expect(matchesNodeFilter(facts(4, { availability: null, supported: null }), f)).toBe(false);
  });

  it('q looks in the name, the URL and the address, whatever the case', () => {
    expect(matchesNodeFilter(facts(1, { name: 'Search-3' }), query({ q: 'search-3' }))).toBe(true);
    expect(matchesNodeFilter(facts(7), query({ q: '10.0.0.7' }))).toBe(true);
    expect(matchesNodeFilter(facts(7), query({ q: ':8080/MCP' }))).toBe(true);
    expect(matchesNodeFilter(facts(7), query({ q: 'nod_007' }))).toBe(false);
  });
});

describe('pageNodeRows', () => {
  it('puts rows without a value last in both orders, equal values in node id order', () => {
    const rows = [
      facts(3, { latencyMs: null }),
      facts(2, { latencyMs: 5 }),
      facts(1, { latencyMs: 5 }),
      facts(4),
    ];
    expect(pageAll(rows, { sort: 'latency' })).toEqual(['nod_001', 'nod_002', 'nod_004', 'nod_003']);
    expect(pageAll(rows, { sort: 'latency', order: 'desc' })).toEqual([
      'nod_004',
      'nod_001',
      'nod_002',
      'nod_003',
    ]);
  });

  it('pages by values too long for a cursor: the cursor names its row, and every row comes once', () => {
    const long = 'x'.repeat(600);
    const rows = Array.from({ length: 10 }, (_, i) => facts(i, { url: `http://h/${long}/${9 - i}` }));
    const ids = pageAll(rows, { sort: 'url', limit: '3' });
    expect(ids).toEqual(rows.map((r) => r.nodeId).reverse());
    const first = pageNodeRows(
      rows.map((f) => ({ row: f.nodeId, facts: f })),
      query({ sort: 'url', limit: '3' }),
    );
    expect(first.nextCursor?.length).toBeLessThanOrEqual(400);
    // The row it names is gone: the caller starts again.
    const without = rows.filter((r) => r.nodeId !== 'nod_007').map((f) => ({ row: f.nodeId, facts: f }));
    expect(() => pageNodeRows(without, query({ sort: 'url', cursor: first.nextCursor ?? '' }))).toThrow(
      ValidationError,
    );
  });

  it('the row a cursor follows may go between pages: no other row repeats or is skipped', () => {
    const rows = Array.from({ length: 9 }, (_, i) => facts(i));
    const all = rows.map((f) => ({ row: f.nodeId, facts: f }));
    const first = pageNodeRows(all, query({ limit: '4' }));
    const rest = pageNodeRows(
      all.filter((r) => r.row !== 'nod_003'),
      query({ limit: '10', cursor: first.nextCursor ?? '' }),
    );
    expect([...first.items, ...rest.items]).toEqual(rows.map((r) => r.nodeId));
    expect(rest.total).toBe(8);
  });
});
