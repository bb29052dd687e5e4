// Flagger's webhooks: the gate hook answers 2xx only when the gate is open (Flagger proceeds on <= 202), the
// rollback hook only when it is not (Flagger rolls back on a 2xx). Flagger's webhook spec has no headers, so
// the read token travels in metadata.token; it is checked like a bearer token and never logged or echoed.
import type { Store } from '@/db/index';
import type { AuthMode } from '@/lib/auth/mode';
import type { z } from 'zod';
import type { FlaggerHookAnswer, FlaggerHookInput } from '@/lib/schemas/rollout';
import { answerGate } from './gate';
import type { Settings } from '@/lib/settings';
import { HttpProblem, buildProblem, problemResponse } from './problem';
import { askForCycles } from './probe-now';
import { enforceRateLimit, json, principalForSecret } from './with-api';

export type FlaggerHookKind = 'gate' | 'rollback';

export async function answerFlaggerHook(
  kind: FlaggerHookKind,
  body: z.output<typeof FlaggerHookInput>,
  ctx: { store: Store; mode: AuthMode; now: number; settings: Settings },
): Promise<Response> {
  const token = body.metadata.token?.trim() ?? '';
  if (token === '') {
    throw new HttpProblem(
      401,
      'credentials_required',
      "this hook needs a read token in metadata.token (Flagger's webhook spec has no headers field)",
      { headers: { 'www-authenticate': 'Bearer realm="erawatch"' } },
    );
  }
  const principal = await principalForSecret(token, ctx.store, ctx.mode, ctx.now);
  enforceRateLimit(principal, ctx.now);

  const gate = await answerGate(ctx.store, body.metadata.balancer, body.metadata.revision, {
    fresh: body.metadata.fresh,
    ask: (id) => askForCycles(ctx.store, id, ctx.settings, ctx.settings.gateFreshWaitMs),
  });
  const canary = {
    name: body.name,
    namespace: body.namespace,
    phase: body.phase ?? null,
    checksum: body.checksum ?? null,
  };
  const proceed = kind === 'gate' ? gate.ready : !gate.ready;
  if (proceed) {
    const answer: FlaggerHookAnswer = { canary, action: kind === 'gate' ? 'promote' : 'rollback', gate };
    return json(answer);
  }
  const problem =
    kind === 'gate'
      ? buildProblem(
          409,
          'gate_closed',
          `${gate.balancerName} is not ready to advertise ${gate.revision} (${gate.state}): ${gate.reasons.join('; ')}`,
        )
      : buildProblem(
          409,
          'gate_open',
          `${gate.balancerName} is ready to advertise ${gate.revision}: no rollback`,
        );
  return problemResponse({ ...problem, canary, gate });
}
