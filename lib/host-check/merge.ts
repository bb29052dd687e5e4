// Merging the tools of several servers into one namespace, as the host's model sees it. Each list is sorted
// before merging and servers are taken in configuration order, so the result does not depend on which server
// answered first. A duplicate is never silently overwritten: it is renamed or it is an error.
import type { CollisionPolicy } from './config';

export interface ServerTools {
  server: string;
  tools: readonly string[];
}

export interface MergedTool {
  /** The name the host exposes. */
  name: string;
  server: string;
  /** The name on the server. */
  tool: string;
}

export interface Collision {
  tool: string;
  /** The server that kept the name, then the later one. */
  servers: [string, string];
  /** Under `prefix`, what the later duplicate became. */
  renamedTo?: string;
}

export interface MergeResult {
  ok: boolean;
  tools: MergedTool[];
  collisions: Collision[];
  /** One line per collision that could not be resolved. */
  errors: string[];
}

function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function mergeTools(lists: readonly ServerTools[], policy: CollisionPolicy): MergeResult {
  const owner = new Map<string, MergedTool>();
  const collisions: Collision[] = [];
  const errors: string[] = [];
  for (const { server, tools } of lists) {
    for (const tool of [...tools].sort(byCodePoint)) {
      const first = owner.get(tool);
      if (!first) {
        owner.set(tool, { name: tool, server, tool });
        continue;
      }
      if (policy === 'reject') {
        collisions.push({ tool, servers: [first.server, server] });
        errors.push(`tool '${tool}' is exposed by both '${first.server}' and '${server}'`);
        continue;
      }
      const renamed = `${server}/${tool}`;
      const taken = owner.get(renamed);
      if (taken) {
        collisions.push({ tool, servers: [first.server, server] });
        errors.push(
          `tool '${tool}' of '${server}' duplicates one of '${first.server}', and its prefixed name '${renamed}' is taken by '${taken.server}'`,
        );
        continue;
      }
      owner.set(renamed, { name: renamed, server, tool });
      collisions.push({ tool, servers: [first.server, server], renamedTo: renamed });
    }
  }
  const tools = [...owner.values()].sort((a, b) => byCodePoint(a.name, b.name));
  return { ok: errors.length === 0, tools, collisions, errors };
}
