// The tool catalog after a settled verdict: tools/list (modern: with `_meta` at the negotiated revision;
// legacy: inside the initialized session), following nextCursor within a page and byte cap, reduced to
// sorted names and digests over each tool's name, description and input schema.
import { createHash } from 'node:crypto';
import { isPlainObject } from './classify';
import type { Exchange, JsonRpcRequest, SendOptions } from './transport';
import type { ToolCatalog, Verdict } from './types';

/** What the verdict was when the catalog was listed: a change of any of these lists it again. */
export function settledKeyOf(v: Pick<Verdict, 'verdict' | 'negotiatedVersion' | 'serverInfo'>): string {
  return JSON.stringify([
    v.verdict,
    v.negotiatedVersion,
    v.serverInfo?.name ?? null,
    v.serverInfo?.version ?? null,
  ]);
}

/** A piece of punctuation on canonicalJson's work stack, told apart from the values still to write. */
class Punct {
  constructor(readonly text: string) {}
}
const OPEN_ARRAY = new Punct('[');
const CLOSE_ARRAY = new Punct(']');
const OPEN_OBJECT = new Punct('{');
const CLOSE_OBJECT = new Punct('}');
const COMMA = new Punct(',');

/**
 * JSON with object keys sorted, so two servers that serialise one schema differently digest the same.
 * Iterative: a server decides how deep its schemas nest, so the depth must never reach the call stack.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const work: unknown[] = [value];
  while (work.length > 0) {
    const item = work.pop();
    if (item instanceof Punct) {
      out.push(item.text);
    } else if (Array.isArray(item)) {
      work.push(CLOSE_ARRAY);
      for (let i = item.length - 1; i >= 0; i -= 1) {
        work.push(item[i]);
        if (i > 0) work.push(COMMA);
      }
      work.push(OPEN_ARRAY);
    } else if (isPlainObject(item)) {
      const keys = Object.keys(item).sort();
      work.push(CLOSE_OBJECT);
      for (let i = keys.length - 1; i >= 0; i -= 1) {
        const key = keys[i] as string;
        work.push(item[key]);
        work.push(new Punct(`${JSON.stringify(key)}:`));
        if (i > 0) work.push(COMMA);
      }
      work.push(OPEN_OBJECT);
    } else {
      out.push(JSON.stringify(item ?? null));
    }
  }
  return out.join('');
}

function sha(text: string, length: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

export interface ToolEntry {
  name: string;
  digest: string;
}

/** One tool's identity for the fingerprint: name, description and input schema, nothing else. */
export function toolEntryOf(tool: Record<string, unknown>): ToolEntry | null {
  if (typeof tool.name !== 'string' || tool.name === '') return null;
  const text = canonicalJson([tool.name, tool.description ?? null, tool.inputSchema ?? null]);
  return { name: tool.name, digest: sha(text, 12) };
}

/** Sorted by name; the catalog digest covers every tool's entry, so any change of one tool changes it. */
export function summarizeTools(entries: ToolEntry[]): {
  names: string[];
  toolDigests: string[];
  digest: string;
} {
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const digest = `cat_${sha(sorted.map((e) => `${e.name}\u0000${e.digest}`).join('\n'), 16)}`;
  return { names: sorted.map((e) => e.name), toolDigests: sorted.map((e) => e.digest), digest };
}

export interface CatalogLimits {
  maxPages: number;
  maxBytes: number;
  /** One budget for the whole listing, every page included. */
  timeoutMs: number;
}

/** Sends one tools/list page; `send` carries the era's headers (and session), the caller records evidence. */
export type PageSender = (request: JsonRpcRequest, options: SendOptions) => Promise<Exchange>;

/**
 * Follows nextCursor until the last page, the page cap, the byte cap or the time budget. `makeRequest`
 * builds each page's request (modern `_meta`, or legacy plain params). Never throws: whatever goes wrong
 * while listing or digesting is a failed catalog, and a catalog never changes the verdict it follows.
 */
export async function listCatalog(
  makeRequest: (cursor: string | null) => JsonRpcRequest,
  send: PageSender,
  limits: CatalogLimits,
  settledKey: string,
  now: () => number,
): Promise<ToolCatalog> {
  const started = now();
  const entries = new Map<string, ToolEntry>();
  const seenCursors = new Set<string>();
  let cursor: string | null = null;
  let bytes = 0;
  let pages = 0;
  let ttlMs: number | null = null;
  let cacheScope: string | null = null;
  const failed = (reason: string): ToolCatalog => ({
    status: 'failed',
    names: [],
    toolDigests: [],
    digest: null,
    ttlMs,
    cacheScope,
    pages,
    listedAt: started,
    settledKey,
    reason,
  });
  try {
    return await listPages();
  } catch (err) {
    return failed(`catalog not digested: ${err instanceof Error ? err.message : String(err)}`);
  }

  async function listPages(): Promise<ToolCatalog> {
    for (;;) {
      if (pages >= limits.maxPages) return failed(`more than ${limits.maxPages} pages`);
      const left = limits.timeoutMs - (now() - started);
      if (left <= 0) return failed(`not listed within ${limits.timeoutMs} ms`);
      const request = makeRequest(cursor);
      const ex = await send(request, { timeoutMs: left, maxBodyBytes: Math.max(1, limits.maxBytes - bytes) });
      pages += 1;
      bytes += ex.bytes ?? 0;
      if (ex.outcome === 'body_too_large') return failed(`catalog larger than ${limits.maxBytes} bytes`);
      if (ex.outcome === 'rpc_error') {
        const error = isPlainObject(ex.message?.error) ? ex.message.error : null;
        // A server without tools answers method-not-found: its catalog is empty, which is comparable.
        if (error?.code === -32601 && pages === 1) break;
        return failed(`tools/list error ${String(error?.code ?? '')}`.trim());
      }
      if (ex.outcome !== 'result') return failed(`tools/list ${ex.outcome}`);
      const result = isPlainObject(ex.message?.result) ? ex.message.result : null;
      if (!result || !Array.isArray(result.tools)) return failed('tools/list result has no tools array');
      for (const tool of result.tools) {
        const entry = isPlainObject(tool) ? toolEntryOf(tool) : null;
        if (!entry) return failed('a tool lacks a non-empty string name');
        entries.set(entry.name, entry);
      }
      if (typeof result.ttlMs === 'number' && Number.isFinite(result.ttlMs)) {
        ttlMs = Math.max(ttlMs ?? 0, result.ttlMs);
      }
      if (typeof result.cacheScope === 'string') cacheScope = result.cacheScope;
      const next = result.nextCursor;
      if (next === undefined || next === null || next === '') break;
      if (typeof next !== 'string') return failed('nextCursor is not a string');
      if (seenCursors.has(next)) return failed('nextCursor repeats');
      seenCursors.add(next);
      cursor = next;
    }
    return {
      status: 'listed',
      ...summarizeTools([...entries.values()]),
      ttlMs,
      cacheScope,
      pages,
      listedAt: started,
      settledKey,
    };
  }
}
