// How an operator recognises a node: lib/schemas/node-label.ts (the alert sinks label their alerts with it too).
export { nodeLabel, nodeLabels } from '@/lib/schemas/node-label';
