// The demo fleet: real MCP SDK servers on loopback, grouped into three balancers, each behind its own
// round-robin proxy so that samples of "the public URL" are real too. Node processes can be replaced in
// place (same host:port, another SDK) to script a rollout.
import type { CreateBalancerInput } from '@/lib/schemas/balancer';
import { isLoopbackHost, startRoundRobinProxy, type RoundRobinProxy } from '@/lib/peers/round-robin-proxy';
import { startPeer, type PeerKind, type RunningPeer } from '@/lib/peers/spawn';

/** What a node runs: the SDK flavour and the app version it reports in serverInfo. */
export interface Release {
  kind: PeerKind;
  version: string;
  /** The tools the build registers (the peer's default, `echo`, when omitted). */
  tools?: readonly string[];
}

/** The search service's three builds, oldest first: the rollout moves every node to `modern`. */
// The modern build also ships a new tool, so the rollout moves the tool catalog as well as the era.
export const SEARCH_RELEASES = {
  legacy: { kind: 'v1-stateful', version: '1.9.0', tools: ['search'] },
  dual: { kind: 'v2-dual', version: '2.0.0', tools: ['search'] },
  modern: { kind: 'v2-modern', version: '2.1.0', tools: ['search', 'suggest'] },
} as const satisfies Record<string, Release>;
export type SearchRelease = keyof typeof SEARCH_RELEASES;

export const DEMO_BALANCERS = {
  modern: 'demo-orders',
  legacy: 'demo-billing',
  rollout: 'demo-search',
} as const;

interface NodeSpec {
  id: string;
  balancer: string;
  serverName: string;
  release: Release;
}

const ORDERS_RELEASE: Release = { kind: 'v2-modern', version: '3.2.0' };
const BILLING_RELEASE: Release = { kind: 'v1-stateful', version: '1.8.2' };

// Node ids are what the console and the rollout script call the nodes.
const NODE_SPECS: NodeSpec[] = [
  ...['orders-1', 'orders-2', 'orders-3'].map((id) => ({
    id,
    balancer: DEMO_BALANCERS.modern,
    serverName: 'orders-api',
    release: ORDERS_RELEASE,
  })),
  ...['billing-1', 'billing-2', 'billing-3'].map((id) => ({
    id,
    balancer: DEMO_BALANCERS.legacy,
    serverName: 'billing-api',
    release: BILLING_RELEASE,
  })),
  {
    id: 'search-1',
    balancer: DEMO_BALANCERS.rollout,
    serverName: 'search-api',
    release: SEARCH_RELEASES.dual,
  },
  {
    id: 'search-2',
    balancer: DEMO_BALANCERS.rollout,
    serverName: 'search-api',
    release: SEARCH_RELEASES.dual,
  },
  {
    id: 'search-3',
    balancer: DEMO_BALANCERS.rollout,
    serverName: 'search-api',
    release: SEARCH_RELEASES.legacy,
  },
  {
    id: 'search-4',
    balancer: DEMO_BALANCERS.rollout,
    serverName: 'search-api',
    release: SEARCH_RELEASES.legacy,
  },
];

export interface DemoNode {
  id: string;
  balancer: string;
  serverName: string;
  release: Release;
  url: string;
  host: string;
  port: number;
  pid: number;
}

export interface DemoProxy {
  balancer: string;
  url: string;
  port: number;
}

export interface DemoFleetOptions {
  /** Loopback address for every node and proxy (127.0.0.1 by default). */
  host?: string;
  /**
   * First port to try; nodes and proxies take consecutive ports from it so a restarted demo keeps its
   * URLs (and its history). A taken port falls back to a free one. 0 (the default) picks free ports.
   */
  basePort?: number;
  /** Poll interval registered for the demo balancers (5 s by default, so the demo moves visibly). */
  intervalMs?: number;
}

export interface DemoFleet {
  /** Registrations for the store, one per balancer, with the fleet's actual URLs. */
  balancers: CreateBalancerInput[];
  nodes(): DemoNode[];
  node(id: string): DemoNode;
  proxies(): DemoProxy[];
  /** Stops the node's process and starts `release` on the same host:port, as a deploy would. */
  replaceNode(id: string, release: Release): Promise<DemoNode>;
  /** Every process the fleet is running (node servers; the proxies live in this process). */
  pids(): number[];
  /** Stops every node process and proxy; safe to call twice. */
  stop(): Promise<void>;
}

interface Slot {
  spec: NodeSpec;
  peer: RunningPeer;
  release: Release;
}

const PROBE_TIMEOUTS = { timeoutMs: 1_500, legacyProbeTimeoutMs: 1_000 };

/**
 * The demo balancers' settings until each has stored its first cycle: that cycle runs while the machine is
 * still busy starting the fleet and the dashboard (and maybe finishing a build), where 1.5 s is too short and
 * a healthy node would be reported "unavailable: timeout". 2 × 4 s + 1.5 s stays below the 10 s interval.
 */
export const FIRST_CYCLE_TIMINGS = { intervalMs: 10_000, timeoutMs: 4_000, legacyProbeTimeoutMs: 1_500 };

/** Starts the whole fleet; if any part fails to start, stops what did start and rethrows. */
export async function startDemoFleet(options: DemoFleetOptions = {}): Promise<DemoFleet> {
  const host = options.host ?? '127.0.0.1';
  const basePort = options.basePort ?? 0;
  const intervalMs = options.intervalMs ?? 5_000;
  if (basePort !== 0 && (!Number.isInteger(basePort) || basePort < 1024 || basePort > 65_000)) {
    throw new RangeError(`basePort must be 0 or an integer from 1024 to 65000, got ${basePort}`);
  }
  if (!isLoopbackHost(host)) throw new RangeError(`host '${host}' is not a loopback address`);
  const portAt = (offset: number) => (basePort === 0 ? 0 : basePort + offset);

  const slots = new Map<string, Slot>();
  const proxies = new Map<string, RoundRobinProxy>();
  // One replacement at a time per node: a second deploy of the same node waits for the first.
  const pending = new Map<string, Promise<unknown>>();
  let stopped = false;

  async function stopAll(): Promise<void> {
    stopped = true;
    // A replacement in flight may be starting a process: let it land, then stop it with the rest.
    await Promise.allSettled([...pending.values()]);
    await Promise.all([...proxies.values()].map((p) => p.stop()));
    await Promise.all([...slots.values()].map((s) => s.peer.stop()));
  }

  try {
    const started = await Promise.allSettled(NODE_SPECS.map((spec, i) => startSlot(spec, host, portAt(i))));
    // Keep the spec order (not the start order), so node lists read orders-1, orders-2, ...
    for (const result of started)
      if (result.status === 'fulfilled') slots.set(result.value.spec.id, result.value);
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;

    const balancerNames = [...new Set(NODE_SPECS.map((s) => s.balancer))];
    for (const [i, balancer] of balancerNames.entries()) {
      const upstreams = [...slots.values()]
        .filter((s) => s.spec.balancer === balancer)
        .map((s) => s.peer.url);
      proxies.set(balancer, await startProxyWithFallback(upstreams, host, portAt(NODE_SPECS.length + i)));
    }
  } catch (err) {
    await stopAll();
    throw err;
  }

  function slotOf(id: string): Slot {
    const slot = slots.get(id);
    if (!slot) throw new RangeError(`no demo node '${id}' (nodes: ${[...slots.keys()].join(', ')})`);
    return slot;
  }

  const balancers = demoBalancers(slots, proxies, intervalMs);

  return {
    balancers,
    nodes: () => [...slots.values()].map(toNode),
    node: (id) => toNode(slotOf(id)),
    proxies: () => [...proxies.entries()].map(([balancer, p]) => ({ balancer, url: p.url, port: p.port })),
    async replaceNode(id, release) {
      const slot = slotOf(id);
      const previous = pending.get(id) ?? Promise.resolve();
      const next = previous
        .catch(() => undefined)
        .then(async () => {
          if (stopped) throw new Error('the demo fleet is stopped');
          const { host: nodeHost, port } = slot.peer;
          await slot.peer.stop();
          slot.peer = await startPeerOnPort(release.kind, {
            host: nodeHost,
            port,
            name: slot.spec.serverName,
            version: release.version,
            ...(release.tools ? { tools: [...release.tools] } : {}),
          });
          await warmUpNode(slot.peer.url);
          slot.release = release;
          return toNode(slot);
        });
      pending.set(id, next);
      return next;
    },
    pids: () => [...slots.values()].map((s) => s.peer.pid),
    stop: stopAll,
  };
}

function toNode(slot: Slot): DemoNode {
  const { spec, peer, release } = slot;
  return {
    id: spec.id,
    balancer: spec.balancer,
    serverName: spec.serverName,
    release,
    url: peer.url,
    host: peer.host,
    port: peer.port,
    pid: peer.pid,
  };
}

/** One node of the fleet, started at its first release and warmed up. */
async function startSlot(spec: NodeSpec, host: string, port: number): Promise<Slot> {
  const peer = await startPeerWithFallback(spec.release.kind, {
    host,
    port,
    name: spec.serverName,
    version: spec.release.version,
    ...(spec.release.tools ? { tools: [...spec.release.tools] } : {}),
  });
  await warmUpNode(peer.url);
  return { spec, peer, release: spec.release };
}

/** The demo's three balancers over the started nodes and proxies. */
function demoBalancers(
  slots: ReadonlyMap<string, Slot>,
  proxies: ReadonlyMap<string, RoundRobinProxy>,
  intervalMs: number,
): CreateBalancerInput[] {
  // Each node registered with the name the console and the rollout script call it (search-3), as an operator
  // names a pod or an instance.
  const nodeUrlsOf = (balancer: string) =>
    [...slots.values()]
      .filter((s) => s.spec.balancer === balancer)
      .map((s) => ({ url: s.peer.url, name: s.spec.id }));
  const proxyUrlOf = (balancer: string) => proxies.get(balancer)?.url ?? '';
  const common = { intervalMs, ...PROBE_TIMEOUTS, samplesPerCycle: 3, attributionHeader: 'x-served-by' };
  const of = (name: string) => ({ ...common, name, publicUrl: proxyUrlOf(name), nodeUrls: nodeUrlsOf(name) });
  return [
    of(DEMO_BALANCERS.modern),
    { ...of(DEMO_BALANCERS.legacy), allowLegacy: true },
    { ...of(DEMO_BALANCERS.rollout), samplesPerCycle: 4, allowLegacy: true, auditLegacy: true },
  ];
}

type PeerSpec = { host: string; port: number; name: string; version: string; tools?: string[] };

async function startPeerWithFallback(kind: PeerKind, spec: PeerSpec): Promise<RunningPeer> {
  if (spec.port === 0) return startPeer(kind, spec);
  try {
    return await startPeer(kind, spec);
  } catch {
    return startPeer(kind, { ...spec, port: 0 });
  }
}

async function startProxyWithFallback(
  upstreams: string[],
  host: string,
  port: number,
): Promise<RoundRobinProxy> {
  try {
    return await startRoundRobinProxy({ upstreams, host, port });
  } catch (err) {
    if (port === 0) throw err;
    return startRoundRobinProxy({ upstreams, host, port: 0 });
  }
}

// A replacement must land on the same port (the balancer's node list names it). The old process has
// just exited, so a failure is another program grabbing the port: retry briefly, then give up loudly.
async function startPeerOnPort(kind: PeerKind, spec: PeerSpec): Promise<RunningPeer> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      return await startPeer(kind, spec);
    } catch (err) {
      lastError = err;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(
    `could not restart ${kind} on ${spec.host}:${spec.port}: ${lastError instanceof Error ? lastError.message : String(lastError)}`,
  );
}

const WARM_UP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

// A freshly started SDK server answers its first requests of each era slowly (modules load, code warms
// up), which the demo's short probe deadlines would report as a timeout: send each era one request first.
export async function warmUpNode(url: string): Promise<void> {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'erawatch-demo', version: '0' },
  };
  const requests = [
    {
      headers: { ...WARM_UP_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
      body: { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } },
    },
    {
      headers: WARM_UP_HEADERS,
      body: {
        jsonrpc: '2.0',
        id: 2,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: meta['io.modelcontextprotocol/clientInfo'],
        },
      },
    },
  ];
  for (const { headers, body } of requests) {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(5_000),
      });
      await res.text();
      const session = res.headers.get('mcp-session-id');
      if (session) {
        const end = await fetch(url, {
          method: 'DELETE',
          headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
          signal: AbortSignal.timeout(5_000),
        });
        await end.text();
      }
    } catch {
      // Only a head start: the poller reports whatever the node really does.
    }
  }
}
