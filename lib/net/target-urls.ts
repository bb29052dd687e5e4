// Probe targets checked at registration (API and config file) by the same rules the poller applies at connect
// time: an address it would refuse is never stored. Private ranges pass; loopback only when configured.
import type { FieldIssue } from '@/lib/errors';
import { checkRegisteredUrl, type EgressPolicy } from './egress';

export interface TargetUrls {
  publicUrl?: string | undefined;
  /** Plain URLs, or listed nodes given with their names (`{ url, name }`). */
  nodeUrls?: ReadonlyArray<string | { url: string }> | undefined;
}

/** One issue per refused URL, with its dotted path (`publicUrl`, `nodeUrls.3`, `nodeUrls.4.url`). */
export function targetUrlIssues(fields: TargetUrls, policy: EgressPolicy): FieldIssue[] {
  const urls: Array<[string, string]> = [];
  if (fields.publicUrl !== undefined) urls.push(['publicUrl', fields.publicUrl]);
  (fields.nodeUrls ?? []).forEach((u, i) =>
    urls.push(typeof u === 'string' ? [`nodeUrls.${i}`, u] : [`nodeUrls.${i}.url`, u.url]),
  );
  return urls.flatMap(([path, url]) => {
    const refusal = checkRegisteredUrl(url, policy);
    return refusal ? [{ path, message: refusal }] : [];
  });
}
