import type { Presentation } from '@/lib/ui/presentation';
import { Icon } from './icon';

/** A status badge: icon plus text label, with colour as a third cue only. */
export function Badge({ p, text, testId }: { p: Presentation; text?: string; testId?: string }) {
  return (
    <span className={`badge tone-${p.tone}`} title={p.hint} data-testid={testId}>
      <Icon name={p.icon} />
      <span>{text ?? p.label}</span>
    </span>
  );
}
