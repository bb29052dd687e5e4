import { describe, expect, it } from 'vitest';
import { canonicalJson, listCatalog, summarizeTools, toolEntryOf } from '@/lib/probe/catalog';
import type { Exchange, JsonRpcRequest, SendOptions } from '@/lib/probe/transport';

/** Pages served by cursor: '' is the first page; each page is the JSON-RPC result it answers with. */
function pagedSender(pages: Record<string, Record<string, unknown>>, sent: JsonRpcRequest[] = []) {
  // Like the transport: a body over the cap is `body_too_large`, whatever it held.
  return async (request: JsonRpcRequest, options?: SendOptions): Promise<Exchange> => {
    sent.push(request);
    const cursor = typeof request.params.cursor === 'string' ? request.params.cursor : '';
    const result = pages[cursor];
    const message = { jsonrpc: '2.0', id: request.id, result };
    const bytes = JSON.stringify(message).length;
    if (options && bytes > options.maxBodyBytes) {
      return {
        outcome: 'body_too_large',
        httpStatus: 200,
        contentType: 'application/json',
        message: null,
        sessionId: null,
        servedBy: null,
        address: null,
        elapsedMs: 1,
        bytes: options.maxBodyBytes,
      };
    }
    return {
      outcome: result ? 'result' : 'rpc_error',
      httpStatus: 200,
      contentType: 'application/json',
      message: result
        ? message
        : { jsonrpc: '2.0', id: request.id, error: { code: -32602, message: 'bad cursor' } },
      sessionId: null,
      servedBy: null,
      address: null,
      elapsedMs: 1,
      bytes: JSON.stringify(message).length,
    };
  };
}

const tool = (name: string, description = `the ${name} tool`) => ({
  name,
  description,
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
});
const request = (cursor: string | null): JsonRpcRequest => ({
  jsonrpc: '2.0',
  id: `r-${cursor ?? 'first'}`,
  method: 'tools/list',
  params: cursor === null ? {} : { cursor },
});
const limits = { maxPages: 5, maxBytes: 100_000, timeoutMs: 5_000 };
const list = (pages: Record<string, Record<string, unknown>>, over = {}, sent: JsonRpcRequest[] = []) =>
  listCatalog(request, pagedSender(pages, sent), { ...limits, ...over }, 'k', () => 0);

describe('listCatalog', () => {
  it('follows nextCursor, sorts the names, and keeps ttlMs and cacheScope', async () => {
    const sent: JsonRpcRequest[] = [];
    const c = await list(
      {
        '': { tools: [tool('zeta'), tool('alpha')], nextCursor: 'p2', ttlMs: 30_000, cacheScope: 'public' },
        p2: { tools: [tool('mid')], ttlMs: 30_000, cacheScope: 'public' },
      },
      {},
      sent,
    );
    expect(c).toMatchObject({
      status: 'listed',
      names: ['alpha', 'mid', 'zeta'],
      pages: 2,
      ttlMs: 30_000,
      cacheScope: 'public',
    });
    expect(sent.map((r) => r.params.cursor ?? null)).toEqual([null, 'p2']);
  });

  it.each<{ name: string; pages: Record<string, Record<string, unknown>>; over: object; reason: string }>([
    {
      name: 'the page cap',
      pages: {
        '': { tools: [tool('a')], nextCursor: 'p2' },
        p2: { tools: [tool('b')], nextCursor: 'p3' },
        p3: { tools: [] },
      },
      over: { maxPages: 2 },
      reason: 'more than 2 pages',
    },
    {
      name: 'the byte cap',
      pages: { '': { tools: [tool('a', 'x'.repeat(500))] } },
      over: { maxBytes: 200 },
      reason: 'catalog larger than 200 bytes',
    },
    {
      name: 'a repeated cursor',
      pages: { '': { tools: [tool('a')], nextCursor: 'p2' }, p2: { tools: [tool('b')], nextCursor: 'p2' } },
      over: {},
      reason: 'nextCursor repeats',
    },
    {
      name: 'a result without tools',
      pages: { '': { items: [] } },
      over: {},
      reason: 'tools/list result has no tools array',
    },
    {
      name: 'a nameless tool',
      pages: { '': { tools: [{ description: 'x' }] } },
      over: {},
      reason: 'a tool lacks a non-empty string name',
    },
    {
      name: 'an error on a later page',
      pages: { '': { tools: [tool('a')], nextCursor: 'gone' } },
      over: {},
      reason: 'tools/list error -32602',
    },
  ])('stops at $name, with no digest', async ({ pages, over, reason }) => {
    const c = await list(pages, over);
    expect(c).toMatchObject({ status: 'failed', digest: null, names: [], reason });
  });

  it('gives an empty, comparable catalog for a server without tools (-32601)', async () => {
    const sender = async (r: JsonRpcRequest): Promise<Exchange> => ({
      ...(await pagedSender({})(r, undefined)),
      message: { jsonrpc: '2.0', id: r.id, error: { code: -32601, message: 'Method not found' } },
    });
    const c = await listCatalog(request, sender, limits, 'k', () => 0);
    expect(c).toMatchObject({ status: 'listed', names: [], pages: 1 });
    expect(c.digest).toBe(summarizeTools([]).digest);
  });
});

describe('the catalog digest', () => {
  it('covers name, description and input schema, and ignores key order and other fields', () => {
    const base = toolEntryOf(tool('search'));
    expect(toolEntryOf({ ...tool('search'), annotations: { title: 'x' } })).toEqual(base);
    expect(
      toolEntryOf({
        inputSchema: tool('search').inputSchema,
        description: 'the search tool',
        name: 'search',
      }),
    ).toEqual(base);
    expect(toolEntryOf(tool('search', 'another description'))?.digest).not.toBe(base?.digest);
    expect(toolEntryOf({ ...tool('search'), inputSchema: { type: 'object' } })?.digest).not.toBe(
      base?.digest,
    );
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
  });

  it('does not depend on the order the server listed its tools in', () => {
    const one = summarizeTools([tool('a'), tool('b')].map((t) => toolEntryOf(t)).filter((e) => e !== null));
    const two = summarizeTools([tool('b'), tool('a')].map((t) => toolEntryOf(t)).filter((e) => e !== null));
    expect(two).toEqual(one);
    expect(one.names).toEqual(['a', 'b']);
  });
});

describe('canonicalJson on server-controlled depth', () => {
  // The recursive definition it replaces: the digests of every catalog listed before stay the same.
  function reference(value: unknown): string {
    if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
    if (typeof value === 'object' && value !== null) {
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      return `{${keys.map((k) => `${JSON.stringify(k)}:${reference(record[k])}`).join(',')}}`;
    }
    return JSON.stringify(value ?? null);
  }

  it('writes what the recursive definition wrote', () => {
    for (const value of [
      null,
      'text',
      3.5,
      [],
      {},
      [1, [2, [3, {}]], { b: null, a: [true, false] }],
      { z: { y: [{ x: 'é', w: undefined }] }, '': 0, 'a"b': [null, 'c'] },
    ]) {
      expect(canonicalJson(value)).toBe(reference(value));
      if (value !== undefined) expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(reference(value)));
    }
  });

  it('takes a schema nested 100,000 levels without touching the call stack', () => {
    const depth = 100_000;
    const source = `${'{"a":['.repeat(depth)}{}${']}'.repeat(depth)}`;
    const deep = JSON.parse(source) as unknown;
    expect(() => reference(deep)).toThrow(RangeError);
    expect(canonicalJson(deep)).toBe(source);
    expect(toolEntryOf({ name: 'deep', inputSchema: deep })).toMatchObject({ name: 'deep' });
  });
});
