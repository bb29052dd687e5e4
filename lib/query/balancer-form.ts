// The register/edit form's values, how they become an API body, and where each API error is shown.
// The API is the validator: the form sends what was typed and places each problem+json pointer at its field.
import type { ApiProblem } from './problem';
import type { Balancer } from './types';

export interface BalancerFormValues {
  name: string;
  publicUrl: string;
  /** One URL per line, optionally followed by a space and the node's display name. */
  nodeUrls: string;
  resolveDns: boolean;
  samplesPerCycle: string;
  intervalMs: string;
  timeoutMs: string;
  legacyProbeTimeoutMs: string;
  allowLegacy: boolean;
  auditLegacy: boolean;
  /** Comma- or space-separated revisions. */
  legacyVersions: string;
  /** Comma- or space-separated region names; empty: every region that has a worker. */
  regions: string;
  /** One `Name: value` per line. */
  headers: string;
  attributionHeader: string;
  /** The CA bundle its HTTPS nodes are verified with: PEM, file:/path or env:NAME; empty: the system roots. */
  tlsCa: string;
  catalog: boolean;
  catalogEvery: string;
  /** OAuth client credentials: on, and its settings (the secret shown as [redacted] when stored literally). */
  authEnabled: boolean;
  authClientId: string;
  authClientSecret: string;
  authIssuer: string;
  authTokenUrl: string;
  authScope: string;
  authResource: string;
}

export const FORM_FIELDS = [
  'name',
  'publicUrl',
  'nodeUrls',
  'resolveDns',
  'samplesPerCycle',
  'intervalMs',
  'timeoutMs',
  'legacyProbeTimeoutMs',
  'allowLegacy',
  'auditLegacy',
  'legacyVersions',
  'regions',
  'headers',
  'attributionHeader',
  'tlsCa',
  'catalog',
  'catalogEvery',
  'authEnabled',
  'authClientId',
  'authClientSecret',
  'authIssuer',
  'authTokenUrl',
  'authScope',
  'authResource',
] as const;
export type FormField = (typeof FORM_FIELDS)[number];

export const EMPTY_FORM: BalancerFormValues = {
  name: '',
  publicUrl: '',
  nodeUrls: '',
  resolveDns: false,
  samplesPerCycle: '',
  intervalMs: '',
  timeoutMs: '',
  legacyProbeTimeoutMs: '',
  allowLegacy: false,
  auditLegacy: false,
  legacyVersions: '',
  regions: '',
  headers: '',
  attributionHeader: '',
  tlsCa: '',
  catalog: true,
  catalogEvery: '',
  authEnabled: false,
  authClientId: '',
  authClientSecret: '',
  authIssuer: '',
  authTokenUrl: '',
  authScope: '',
  authResource: '',
};

export function formFromBalancer(b: Balancer): BalancerFormValues {
  return {
    name: b.name,
    publicUrl: b.publicUrl,
    nodeUrls: b.nodeUrls
      .map((url) => (b.nodeNames[url] === undefined ? url : `${url} ${b.nodeNames[url]}`))
      .join('\n'),
    resolveDns: b.resolveDns,
    samplesPerCycle: String(b.samplesPerCycle),
    intervalMs: String(b.intervalMs),
    timeoutMs: String(b.timeoutMs),
    legacyProbeTimeoutMs: String(b.legacyProbeTimeoutMs),
    allowLegacy: b.allowLegacy,
    auditLegacy: b.auditLegacy,
    legacyVersions: b.legacyVersions.join(', '),
    regions: (b.regions ?? []).join(', '),
    headers: Object.entries(b.headers)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n'),
    attributionHeader: b.attributionHeader ?? '',
    tlsCa: b.tlsCa ?? '',
    catalog: b.catalog,
    catalogEvery: String(b.catalogEvery),
    authEnabled: b.auth !== null,
    authClientId: b.auth?.clientId ?? '',
    authClientSecret: b.auth?.clientSecret ?? '',
    authIssuer: b.auth?.issuer ?? '',
    authTokenUrl: b.auth?.tokenUrl ?? '',
    authScope: b.auth?.scope ?? '',
    authResource: b.auth?.resource ?? '',
  };
}

function lines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/** A node line: `URL` or `URL name` (a URL holds no spaces, so the name is everything after the first run). */
function nodeEntry(line: string): string | { url: string; name: string } {
  const m = /^(\S+)\s+(.+)$/.exec(line);
  return m?.[1] && m[2] ? { url: m[1], name: m[2] } : line;
}

/** A number when the text is one; otherwise the text itself, so the API names the field in its answer. */
function numberOrText(text: string): number | string {
  const t = text.trim();
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : t;
}

/** The request body: empty optional fields are left out so the API applies its defaults. */
export function bodyFromForm(v: BalancerFormValues): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: v.name,
    publicUrl: v.publicUrl.trim(),
    nodeUrls: lines(v.nodeUrls).map(nodeEntry),
    // The names are on the lines: one taken off a line goes (the API keeps unsent names otherwise).
    nodeNames: {},
    resolveDns: v.resolveDns,
    allowLegacy: v.allowLegacy,
    auditLegacy: v.auditLegacy,
    catalog: v.catalog,
  };
  for (const key of [
    'samplesPerCycle',
    'intervalMs',
    'timeoutMs',
    'legacyProbeTimeoutMs',
    'catalogEvery',
  ] as const) {
    if (v[key].trim() !== '') body[key] = numberOrText(v[key]);
  }
  const versions = v.legacyVersions.split(/[\s,]+/).filter((s) => s !== '');
  if (versions.length > 0) body.legacyVersions = versions;
  // An empty field means every region that has a worker: null, which also clears a list on edit.
  const regions = v.regions.split(/[\s,]+/).filter((s) => s !== '');
  body.regions = regions.length > 0 ? regions : null;
  const headers: Record<string, string> = {};
  for (const line of lines(v.headers)) {
    const colon = line.indexOf(':');
    // A line without a colon is sent as a name with an empty value: the API then says what is wrong with it.
    if (colon < 0) headers[line] = '';
    else headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  body.headers = headers;
  body.attributionHeader = v.attributionHeader.trim() === '' ? null : v.attributionHeader.trim();
  // Empty: the system roots (null also clears a bundle on edit). PEM keeps its line breaks.
  body.tlsCa = v.tlsCa.trim() === '' ? null : v.tlsCa.trim();
  body.auth = v.authEnabled
    ? {
        type: 'oauth-client-credentials',
        clientId: v.authClientId.trim(),
        clientSecret: v.authClientSecret.trim(),
        ...(v.authScope.trim() ? { scope: v.authScope.trim() } : {}),
        ...(v.authIssuer.trim() ? { issuer: v.authIssuer.trim() } : {}),
        ...(v.authTokenUrl.trim() ? { tokenUrl: v.authTokenUrl.trim() } : {}),
        ...(v.authResource.trim() ? { resource: v.authResource.trim() } : {}),
      }
    : null;
  return body;
}

export interface PlacedErrors {
  fields: Partial<Record<FormField, string>>;
  /** Problems that belong to no field (or to the body as a whole). */
  general: string[];
}

/**
 * Puts each problem+json pointer at its field: `/nodeUrls/2` becomes "line 3: …" on the node list. A 409
 * carries no pointer, but on this form the one unique constraint is the name, so it goes there.
 */
export function placeErrors(problem: ApiProblem): PlacedErrors {
  const placed: PlacedErrors = { fields: {}, general: [] };
  const add = (field: FormField, message: string) => {
    const prev = placed.fields[field];
    placed.fields[field] = prev ? `${prev}; ${message}` : message;
  };
  for (const f of problem.fields) {
    const [, head = '', index] = f.pointer.split('/');
    if (head === 'auth') {
      const sub = index ? `auth${index.charAt(0).toUpperCase()}${index.slice(1)}` : 'authEnabled';
      add((FORM_FIELDS as readonly string[]).includes(sub) ? (sub as FormField) : 'authEnabled', f.message);
    } else if ((FORM_FIELDS as readonly string[]).includes(head)) {
      const field = head as FormField;
      const where =
        index !== undefined && (field === 'nodeUrls' || field === 'legacyVersions' || field === 'regions')
          ? `${field === 'nodeUrls' ? 'line' : 'item'} ${Number(index) + 1}: `
          : index !== undefined && field === 'headers'
            ? `${decodePointerPart(index)}: `
            : '';
      add(field, `${where}${f.message}`);
    } else {
      placed.general.push(f.pointer === '/' ? f.message : `${f.pointer}: ${f.message}`);
    }
  }
  if (problem.status === 409 && problem.fields.length === 0) add('name', problem.detail ?? problem.title);
  else if (problem.fields.length === 0) placed.general.push(problem.detail ?? problem.title);
  return placed;
}

function decodePointerPart(part: string): string {
  return part.replace(/~1/g, '/').replace(/~0/g, '~');
}
