// Shapes stored rows into API responses: redacts secrets, drops internal columns.
import type { Balancer, BalancerListItem } from '@/db/queries/balancers';
import { redactAuth, redactHeaders } from '@/lib/schemas/balancer-view';

export function balancerView<B extends Balancer | BalancerListItem>(b: B) {
  return { ...b, headers: redactHeaders(b.headers), auth: redactAuth(b.auth) };
}
