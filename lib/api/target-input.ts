// Probe target URLs refused at registration answer 422 `egress_refused`, one pointer per refused URL.
import { targetUrlIssues, type TargetUrls } from '@/lib/net/target-urls';
import { HttpProblem } from './problem';

export function assertTargetUrlsAllowed(fields: TargetUrls): void {
  const issues = targetUrlIssues(fields);
  if (issues.length === 0) return;
  throw new HttpProblem(422, 'egress_refused', `a probe target is not allowed: ${issues[0]?.message ?? ''}`, {
    errors: issues.map((i) => ({ pointer: `/${i.path.split('.').join('/')}`, detail: i.message })),
  });
}
