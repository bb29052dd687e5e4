// Probe target URLs refused at registration answer 422 `egress_refused`, one pointer per refused URL.
import { targetUrlIssues, type TargetUrls } from '@/lib/net/target-urls';
import { probeEgressPolicy } from '@/lib/net/egress';
import type { Settings } from '@/lib/settings';
import { HttpProblem } from './problem';

export function assertTargetUrlsAllowed(fields: TargetUrls, settings: Pick<Settings, 'allowLoopback'>): void {
  const issues = targetUrlIssues(fields, probeEgressPolicy(settings));
  if (issues.length === 0) return;
  throw new HttpProblem(422, 'egress_refused', `a probe target is not allowed: ${issues[0]?.message ?? ''}`, {
    errors: issues.map((i) => ({ pointer: `/${i.path.split('.').join('/')}`, detail: i.message })),
  });
}
