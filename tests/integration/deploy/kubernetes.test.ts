// The Kubernetes manifests: every overlay rendered by `kubectl kustomize`, every object validated against
// the Kubernetes OpenAPI schemas (kubernetes-models, offline) and the Prometheus Operator's CRD schemas,
// and the settings the product depends on checked in what a cluster would receive.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  PrometheusRule,
  ServiceMonitor,
} from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { ConfigMap, Service } from 'kubernetes-models/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { ConfigFile } from '@/lib/schemas/config';

const root = path.resolve(import.meta.dirname, '../../..');
const kube = path.join(root, 'deploy', 'kubernetes');

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}

interface Container {
  name: string;
  image: string;
  args: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
  ports?: Array<{ name: string; containerPort: number }>;
  livenessProbe?: { httpGet?: { path: string; port: string } };
  readinessProbe?: { httpGet?: { path: string; port: string } };
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
  volumeMounts?: Array<{ name: string; mountPath: string }>;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

interface PodSpec {
  terminationGracePeriodSeconds?: number;
  volumes?: Array<{ name: string; emptyDir?: Record<string, unknown> }>;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  containers: Container[];
}

const MODELS: Record<string, { validate(o: unknown): void }> = {
  'apps/v1 Deployment': { validate: (o) => new Deployment(o as Deployment).validate() },
  'apps/v1 StatefulSet': { validate: (o) => new StatefulSet(o as StatefulSet).validate() },
  'v1 ConfigMap': { validate: (o) => new ConfigMap(o as ConfigMap).validate() },
  'v1 Service': { validate: (o) => new Service(o as Service).validate() },
  'networking.k8s.io/v1 NetworkPolicy': { validate: (o) => new NetworkPolicy(o as NetworkPolicy).validate() },
  'policy/v1 PodDisruptionBudget': {
    validate: (o) => new PodDisruptionBudget(o as PodDisruptionBudget).validate(),
  },
  'monitoring.coreos.com/v1 ServiceMonitor': {
    validate: (o) => new ServiceMonitor(o as ServiceMonitor).validate(),
  },
  'monitoring.coreos.com/v1 PrometheusRule': {
    validate: (o) => new PrometheusRule(o as PrometheusRule).validate(),
  },
};

function render(overlay: string): K8sObject[] {
  const out = execFileSync('kubectl', ['kustomize', path.join(kube, 'overlays', overlay)], {
    encoding: 'utf8',
  });
  return parseAllDocuments(out).map((d) => d.toJSON() as K8sObject);
}

function workloads(
  objects: K8sObject[],
): Array<{ name: string; kind: string; replicas: number; pod: PodSpec }> {
  return objects
    .filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet')
    .map((o) => {
      const spec = o.spec as { replicas: number; template: { spec: PodSpec } };
      return { name: o.metadata.name, kind: o.kind, replicas: spec.replicas, pod: spec.template.spec };
    });
}

function envOf(c: Container, name: string) {
  return c.env?.find((e) => e.name === name);
}

const OVERLAYS = ['one-box', 'ha', 'region'];
// The poll role's stop: 10 s for running cycles, then up to 5 s for abandoned probes (lib/poller/runner.ts).
const WORKER_SHUTDOWN_S = 15;

describe('Kubernetes manifests', () => {
  it.each(OVERLAYS)('%s renders, and every object is valid against its schema', (overlay) => {
    const objects = render(overlay);
    expect(objects.length).toBeGreaterThan(2);
    for (const o of objects) {
      const model = MODELS[`${o.apiVersion} ${o.kind}`];
      expect(model, `${o.kind} ${o.metadata.name} has a schema here`).toBeDefined();
      expect(() => model?.validate(o), `${o.kind} ${o.metadata.name}`).not.toThrow();
    }
  });

  it('the validation refuses what a cluster would refuse', () => {
    const broken = structuredClone(render('ha').find((o) => o.kind === 'Deployment'));
    const pod = (broken?.spec as { template: { spec: PodSpec } } | undefined)?.template.spec;
    const limits = pod?.containers[0]?.resources?.limits;
    expect(limits).toBeDefined();
    if (limits) limits.memory = 'half a gig';
    expect(() => MODELS['apps/v1 Deployment']?.validate(broken)).toThrow(/memory/);
  });

  it('one-box: one StatefulSet running every role on SQLite on a claimed volume', () => {
    const objects = render('one-box');
    const [box, ...others] = workloads(objects);
    expect(others).toEqual([]);
    expect(box).toMatchObject({ kind: 'StatefulSet', replicas: 1 });
    const c = box?.pod.containers[0];
    expect(c?.args.slice(0, 1)).toEqual(['serve']);
    expect(envOf(c as Container, 'ERAWATCH_ROLES')).toBeUndefined();
    expect(envOf(c as Container, 'ERAWATCH_DB')?.value).toBe('/var/lib/erawatch/erawatch.db');
    const set = objects.find((o) => o.kind === 'StatefulSet')?.spec as {
      volumeClaimTemplates: Array<{ metadata: { name: string } }>;
      template: { spec: { containers: Array<{ volumeMounts: Array<{ name: string; mountPath: string }> }> } };
    };
    expect(set.volumeClaimTemplates.map((v) => v.metadata.name)).toEqual(['data']);
    expect(set.template.spec.containers[0]?.volumeMounts).toContainEqual({
      name: 'data',
      mountPath: '/var/lib/erawatch',
    });
  });

  it('ha: two web processes and two workers on PostgreSQL from a Secret, a disruption budget each', () => {
    const objects = render('ha');
    const byName = Object.fromEntries(workloads(objects).map((w) => [w.name, w]));
    expect(byName['erawatch-web']).toMatchObject({ kind: 'Deployment', replicas: 2 });
    expect(byName['erawatch-worker']).toMatchObject({ kind: 'Deployment', replicas: 2 });
    for (const w of Object.values(byName)) {
      expect(envOf(w.pod.containers[0] as Container, 'ERAWATCH_DB')?.valueFrom?.secretKeyRef).toEqual({
        name: 'erawatch-database',
        key: 'url',
      });
    }
    expect(byName['erawatch-web']?.pod.containers[0]?.args[0]).toBe('serve');
    expect(envOf(byName['erawatch-web']?.pod.containers[0] as Container, 'ERAWATCH_ROLES')?.value).toBe(
      'none',
    );
    expect(byName['erawatch-worker']?.pod.containers[0]?.args).toEqual(['worker', '--health-port', '8081']);
    const budgets = objects.filter((o) => o.kind === 'PodDisruptionBudget');
    expect(
      budgets
        .map(
          (b) =>
            (b.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels[
              'app.kubernetes.io/component'
            ],
        )
        .sort(),
    ).toEqual(['web', 'worker']);
    expect(objects.map((o) => o.kind)).toEqual(expect.arrayContaining(['ServiceMonitor', 'PrometheusRule']));
  });

  it('region: only poll workers, naming their region', () => {
    const objects = render('region');
    const all = workloads(objects);
    expect(all.map((w) => w.name)).toEqual(['erawatch-worker']);
    const c = all[0]?.pod.containers[0] as Container;
    expect(c.args).toEqual(['worker', '--roles', 'poll', '--health-port', '8081']);
    expect(envOf(c, 'ERAWATCH_REGION')?.value).toMatch(/^[a-z0-9-]{1,63}$/);
    expect(objects.some((o) => o.kind === 'Service')).toBe(false);
  });

  it.each(OVERLAYS)('%s: probes, resources, grace, non-root and the image on every workload', (overlay) => {
    for (const w of workloads(render(overlay))) {
      const c = w.pod.containers[0] as Container;
      expect(c.image, w.name).toMatch(/^ghcr\.io\/erawatch\/erawatch:/);
      expect(w.pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      expect(c.resources?.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
      expect(c.resources?.limits).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
      // Every workload is probed on a port it serves: the web port, or the worker's --health-port.
      expect(c.livenessProbe?.httpGet?.path, w.name).toBe('/healthz');
      expect(c.readinessProbe?.httpGet?.path, w.name).toBe('/readyz');
      const probed = c.ports?.find((p) => p.name === c.livenessProbe?.httpGet?.port);
      expect(probed, w.name).toBeDefined();
      if (c.args[0] === 'worker') {
        expect(probed?.name).toBe('health');
        expect(c.args.slice(-2)).toEqual(['--health-port', String(probed?.containerPort)]);
      }
      // Nothing in the image is written: /tmp is an emptyDir, and the root file system is read-only.
      expect(c.securityContext, w.name).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
      });
      const tmp = c.volumeMounts?.find((m) => m.mountPath === '/tmp');
      expect(tmp, w.name).toBeDefined();
      expect(w.pod.volumes?.find((v) => v.name === tmp?.name)?.emptyDir, w.name).toBeDefined();
      const polls = c.args[0] === 'worker' || envOf(c, 'ERAWATCH_ROLES')?.value !== 'none';
      if (polls) expect(w.pod.terminationGracePeriodSeconds ?? 30, w.name).toBeGreaterThan(WORKER_SHUTDOWN_S);
    }
  });

  it.each(['one-box', 'ha'])(
    '%s: the web process answers the Service by its cluster names, as Argo Rollouts and Flagger call it',
    (overlay) => {
      const objects = render(overlay);
      const service = objects.find((o) => o.kind === 'Service')?.metadata.name ?? '';
      expect(service).not.toBe('');
      for (const w of workloads(objects).filter((x) => x.pod.containers[0]?.args[0] === 'serve')) {
        const c = w.pod.containers[0] as Container;
        const hosts = (envOf(c, 'ERAWATCH_ALLOWED_HOSTS')?.value ?? '').split(',');
        expect(hosts).toEqual(
          expect.arrayContaining([
            'erawatch.example.com',
            '$(POD_IP)',
            service,
            `${service}.$(POD_NAMESPACE)`,
            `${service}.$(POD_NAMESPACE).svc`,
            `${service}.$(POD_NAMESPACE).svc.cluster.local`,
          ]),
        );
        // Kubernetes expands $(NAME) only from variables listed before it.
        const names = (c.env ?? []).map((e) => e.name);
        expect(names.indexOf('POD_NAMESPACE')).toBeLessThan(names.indexOf('ERAWATCH_ALLOWED_HOSTS'));
        expect(names.indexOf('POD_IP')).toBeLessThan(names.indexOf('ERAWATCH_ALLOWED_HOSTS'));
      }
    },
  );

  it.each(OVERLAYS)('%s: ingress reaches the web port only, egress stays open', (overlay) => {
    const objects = render(overlay);
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
    type Spec = {
      podSelector: { matchLabels: Record<string, string> };
      policyTypes: string[];
      ingress?: Array<{ from?: unknown; ports?: Array<{ port: string | number; protocol: string }> }>;
    };
    const specs = policies.map((p) => p.spec as Spec);
    // Every pod is selected by a policy with no rule of its own: ingress is denied unless another allows it.
    const deny = specs.find(
      (s) => !s.ingress && !('app.kubernetes.io/component' in s.podSelector.matchLabels),
    );
    expect(deny?.podSelector.matchLabels).toEqual({ 'app.kubernetes.io/name': 'erawatch' });
    // The one rule that allows: web pods, their http port, from anywhere.
    const allows = specs.filter((s) => s.ingress);
    expect(allows).toHaveLength(1);
    expect(allows[0]?.podSelector.matchLabels['app.kubernetes.io/component']).toBe('web');
    expect(allows[0]?.ingress).toEqual([{ ports: [{ protocol: 'TCP', port: 'http' }] }]);
    for (const s of specs) expect(s.policyTypes).toEqual(['Ingress']);
    for (const w of workloads(objects).filter((x) => x.pod.containers[0]?.args[0] === 'serve'))
      expect(w.pod.containers[0]?.ports?.map((p) => p.name)).toContain('http');
  });

  it('the ConfigMap carries a valid erawatch.config.yaml where ERAWATCH_CONFIG points', () => {
    const objects = render('ha');
    const config = objects.find((o) => o.kind === 'ConfigMap' && o.data?.['erawatch.config.yaml']);
    expect(ConfigFile.safeParse(parse(config?.data?.['erawatch.config.yaml'] ?? '')).success).toBe(true);
    const env = objects.find((o) => o.kind === 'ConfigMap' && o.data?.ERAWATCH_CONFIG);
    expect(env?.data?.ERAWATCH_CONFIG).toBe('/etc/erawatch/erawatch.config.yaml');
  });

  it('the PrometheusRule carries the shipped rules unchanged', () => {
    const shipped = parse(
      fs.readFileSync(path.join(root, 'docs', 'prometheus', 'erawatch.rules.yaml'), 'utf8'),
    ) as {
      groups: unknown[];
    };
    const rule = render('ha').find((o) => o.kind === 'PrometheusRule');
    expect((rule?.spec as { groups: unknown[] }).groups).toEqual(shipped.groups);
  });
});
