import Link from 'next/link';
import { Badge } from '@/components/ui/badge';
import { When } from '@/components/ui/when';
import { describeEvent, eventLook, withNodeNames } from '@/lib/ui/events';
import type { EventItem } from '@/lib/query/types';

function formatTime(at: number): string {
  return new Date(at).toISOString().replace('T', ' ').slice(5, 19);
}

/** Events newest first; node ids link to the node's evidence. */
export function Timeline({ events, nodeNames }: { events: EventItem[]; nodeNames?: Map<string, string> }) {
  if (events.length === 0) {
    return (
      <p className="panel-body muted">
        No events yet: transitions (divergence, outages, era changes, gates) appear here.
      </p>
    );
  }
  return (
    <ol className="timeline" data-testid="timeline">
      {events.map((e) => {
        const look = eventLook(e.type);
        const detail = nodeNames ? withNodeNames(describeEvent(e), nodeNames) : describeEvent(e);
        return (
          <li key={e.id} data-testid="timeline-event" data-type={e.type}>
            <When at={e.at} stamp={formatTime} />
            <span>
              <Badge p={{ label: look.label, icon: look.icon, tone: look.tone, hint: e.type }} />{' '}
              {e.nodeId ? (
                <Link href={`/nodes/${encodeURIComponent(e.nodeId)}`} className="mono">
                  {nodeNames?.get(e.nodeId) ?? e.nodeId}
                </Link>
              ) : null}{' '}
              <span className="muted">{detail}</span>
            </span>
          </li>
        );
      })}
    </ol>
  );
}
