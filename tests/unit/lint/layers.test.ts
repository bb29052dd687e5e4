// The layers of docs/architecture.md, enforced: the lint rule refuses an import across a layer's boundary, and
// lets through what the layer may import.
import { beforeAll, describe, expect, it } from 'vitest';
import { ruleMessages, warmUp } from './support';

async function refused(file: string, line: string): Promise<string[]> {
  const name = /\{ (\w+)/.exec(line)?.[1] ?? 'x';
  return ruleMessages('no-restricted-imports', file, `${line}\nexport const used = [${name}];\n`);
}

beforeAll(warmUp, 120_000);

describe('imports between layers', () => {
  it.each([
    ['lib/poller/x.ts', "import { recordProbe } from '@/lib/metrics/stored';", 'lib/metrics observes'],
    ['lib/poller/x.ts', "import { startWorker } from '@/lib/worker';", 'lib/worker composes'],
    ['lib/poller/x.ts', "import { withApi } from '@/lib/api/with-api';", 'through the store'],
    ['lib/rollout/x.ts', "import { getBalancer } from '@/db/queries/balancers';", 'does no storage'],
    ['lib/probe/x.ts', "import { runCycle } from '@/lib/poller/balancer-cycle';", 'only the foundation'],
    ['components/x.tsx', "import { listNodes } from '@/db/queries/nodes';", 'read through the API'],
    ['lib/ui/x.ts', "import { startPoller } from '@/lib/poller';", 'read through the API'],
    ['db/queries/x.ts', "import { runCycle } from '@/lib/poller/balancer-cycle';", 'never imports a role'],
    ['db/queries/x.ts', "import { createSender } from '@/lib/deliver/http';", 'never imports a role'],
    ['db/queries/x.ts', "import { deliveryPass } from '../../lib/deliver/loop';", 'never imports a role'],
    ['db/queries/x.ts', "import { createWebhook } from '@/lib/webhooks/endpoints';", 'policy lives with'],
    ['lib/alertmanager/x.ts', "import { createWebhook } from '@/lib/webhooks/endpoints';", 'lib/webhooks'],
    ['lib/alertmanager/x.ts', "import { deliveryPass } from '@/lib/deliver/loop';", 'lib/deliver'],
    ['lib/alertmanager/x.ts', "import { nodeLabels } from '@/lib/ui/fleet';", 'web layer'],
    ['lib/webhooks/x.ts', "import { alertsFor } from '@/lib/alertmanager/alerts';", 'lib/alertmanager'],
    ['lib/deliver/x.ts', "import { nodeLabels } from '@/lib/ui/fleet';", 'web layer'],
    ['lib/deliver/plan.ts', "import { listWebhooks } from '@/db/queries/webhooks';", 'does no storage'],
    ['db/queries/x.ts', "import { buildEnvelope } from '../../lib/webhooks/envelope';", 'policy lives with'],
    ['db/queries/x.ts', "import { hashToken } from '@/lib/auth/tokens';", 'policy lives with'],
    ['db/queries/x.ts', "import { alertsFor } from '@/lib/alertmanager/alerts';", 'policy lives with'],
    ['db/queries/x.ts', "import { checkTarget } from '@/lib/rollout/validate';", 'takes validated input'],
    ['db/x.ts', "import { checkTarget } from '../lib/rollout/validate';", 'takes validated input'],
    ['db/queries/x.ts', "import { parseInput } from '@/lib/schemas/common';", 'takes validated input'],
    ['db/queries/x.ts', "import { createBalancer } from '@/lib/balancers';", 'takes validated input'],
    ['db/x.ts', "import { startWorker } from '@/lib/worker';", 'never imports a role'],
    ['db/queries/x.ts', "import { recordProbe } from '@/lib/metrics/stored';", 'never imports a role'],
    ['db/queries/x.ts', "import { withApi } from '@/lib/api/with-api';", 'never imports a role'],
    ['lib/webhooks/x.ts', "import { json } from '@/lib/api/with-api';", 'web layer'],
    ['lib/alertmanager/x.ts', "import { nodeLabels } from '@/lib/ui/node-label';", 'no web layer'],
    ['lib/poller/x.ts', "import { sql } from 'drizzle-orm';", 'one door'],
  ])('%s: %s is refused', async (file, line, says) => {
    const messages = await refused(file, line);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(says);
  });

  it.each([
    ['lib/poller/x.ts', "import { analyzeCycle } from '@/lib/rollout';"],
    ['lib/poller/x.ts', "import { listUnits } from '@/db/queries/units';"],
    ['lib/metrics/x.ts', "import { createPollerEvents } from '@/lib/poller/events';"],
    ['lib/api/x.ts', "import { requestBalancerCycles } from '@/lib/poller/requests';"],
    ['db/queries/x.ts', "import { buildEnvelope } from '@/lib/schemas/webhook-envelope';"],
    ['db/queries/x.ts', "import { planDeliveries } from '@/lib/deliver/plan';"],
    ['lib/deliver/x.ts', "import { alertsFor } from '@/lib/alertmanager/alerts';"],
    ['lib/webhooks/x.ts', "import { attemptDelivery } from '@/lib/deliver/loop';"],
    ['db/schema/x.ts', "import { EVENT_TYPES } from '../../lib/rollout/types';"],
    ['lib/rollout/x.ts', "import { DEFAULT_MODERN_VERSIONS } from '@/lib/probe/types';"],
  ])('%s: %s is allowed', async (file, line) => {
    expect(await refused(file, line)).toEqual([]);
  });
});
