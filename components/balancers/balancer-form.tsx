'use client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent, type ReactNode } from 'react';
import { Icon } from '@/components/ui/icon';
import { browserFetcher } from '@/lib/query/fetch-json';
import { createBalancer, updateBalancer } from '@/lib/query/mutations';
import { queryKeys } from '@/lib/query/options';
import { ApiProblem } from '@/lib/query/problem';
import type { Balancer } from '@/lib/query/types';
import type { CreateBalancerInput, UpdateBalancerInput } from '@/lib/schemas/balancer';
import {
  bodyFromForm,
  placeErrors,
  type BalancerFormValues,
  type FormField,
  type PlacedErrors,
} from '@/lib/query/balancer-form';

interface Props {
  mode: 'create' | 'edit';
  initial: BalancerFormValues;
  /** The balancer being edited. */
  id?: string;
}

export function BalancerForm({ mode, initial, id }: Props) {
  const [values, setValues] = useState<BalancerFormValues>(initial);
  const [errors, setErrors] = useState<PlacedErrors>({ fields: {}, general: [] });
  const client = useQueryClient();
  const router = useRouter();
  const save = useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      mode === 'create' || !id
        ? createBalancer(browserFetcher, body as CreateBalancerInput)
        : updateBalancer(browserFetcher, id, body as UpdateBalancerInput),
    onSuccess: async (saved: Balancer) => {
      await client.invalidateQueries({ queryKey: queryKeys.fleet });
      await client.invalidateQueries({ queryKey: queryKeys.balancer(saved.id) });
      router.push(`/balancers/${encodeURIComponent(saved.id)}`);
    },
    onError: (err) => {
      setErrors(
        err instanceof ApiProblem
          ? placeErrors(err)
          : { fields: {}, general: [err instanceof Error ? err.message : String(err)] },
      );
    },
  });

  const set = <K extends keyof BalancerFormValues>(key: K, value: BalancerFormValues[K]) =>
    setValues((v) => ({ ...v, [key]: value }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setErrors({ fields: {}, general: [] });
    save.mutate(bodyFromForm(values));
  };
  const fieldProps = (field: FormField) => ({
    id: `f-${field}`,
    name: field,
    'aria-invalid': errors.fields[field] ? true : undefined,
    'aria-describedby': errors.fields[field] ? `f-${field}-error` : `f-${field}-help`,
  });
  const hasErrors = errors.general.length > 0 || Object.keys(errors.fields).length > 0;

  return (
    <form
      className="form panel panel-body"
      onSubmit={submit}
      noValidate
      aria-label={mode === 'create' ? 'Register balancer' : 'Edit balancer'}
    >
      {hasErrors ? (
        <div className="notice tone-bad" role="alert" data-testid="form-error">
          <Icon name="alert" />
          <span>
            {mode === 'create' ? 'The balancer was not registered' : 'The changes were not saved'}:{' '}
            {errors.general.length > 0 ? errors.general.join('; ') : 'see the marked fields.'}
          </span>
        </div>
      ) : null}
      <Field
        field="name"
        label="Name"
        error={errors.fields.name}
        help="Letters, digits, spaces, dots, dashes and underscores."
      >
        <input
          type="text"
          autoComplete="off"
          value={values.name}
          onChange={(e) => set('name', e.target.value)}
          {...fieldProps('name')}
        />
      </Field>
      <Field
        field="publicUrl"
        label="Public URL"
        error={errors.fields.publicUrl}
        help="The MCP endpoint clients use, e.g. https://mcp.example.com/mcp; sampled each cycle."
      >
        <input
          type="url"
          value={values.publicUrl}
          onChange={(e) => set('publicUrl', e.target.value)}
          {...fieldProps('publicUrl')}
        />
      </Field>
      <Field
        field="nodeUrls"
        label="Node URLs"
        error={errors.fields.nodeUrls}
        help="Optional: one URL per line, each node behind the balancer probed directly; a name after the URL (https://10.0.0.5/mcp search-3) is what the dashboard calls it."
      >
        <textarea
          rows={4}
          value={values.nodeUrls}
          onChange={(e) => set('nodeUrls', e.target.value)}
          {...fieldProps('nodeUrls')}
        />
      </Field>
      <div className="field-row">
        <Field
          field="intervalMs"
          label="Interval (ms)"
          error={errors.fields.intervalMs}
          help="Default 30000."
        >
          <input
            type="text"
            inputMode="numeric"
            value={values.intervalMs}
            onChange={(e) => set('intervalMs', e.target.value)}
            {...fieldProps('intervalMs')}
          />
        </Field>
        <Field
          field="timeoutMs"
          label="Timeout (ms)"
          error={errors.fields.timeoutMs}
          help="Per request; default 5000."
        >
          <input
            type="text"
            inputMode="numeric"
            value={values.timeoutMs}
            onChange={(e) => set('timeoutMs', e.target.value)}
            {...fieldProps('timeoutMs')}
          />
        </Field>
        <Field
          field="legacyProbeTimeoutMs"
          label="Legacy timeout (ms)"
          error={errors.fields.legacyProbeTimeoutMs}
          help="Deadline of the one initialize; default 3000."
        >
          <input
            type="text"
            inputMode="numeric"
            value={values.legacyProbeTimeoutMs}
            onChange={(e) => set('legacyProbeTimeoutMs', e.target.value)}
            {...fieldProps('legacyProbeTimeoutMs')}
          />
        </Field>
        <Field
          field="samplesPerCycle"
          label="Samples / cycle"
          error={errors.fields.samplesPerCycle}
          help="Probes of the public URL; default 4."
        >
          <input
            type="text"
            inputMode="numeric"
            value={values.samplesPerCycle}
            onChange={(e) => set('samplesPerCycle', e.target.value)}
            {...fieldProps('samplesPerCycle')}
          />
        </Field>
      </div>
      <fieldset className="field" style={{ border: 0, padding: 0, margin: 0 }}>
        <legend className="label" style={{ fontWeight: 600, marginBottom: 4 }}>
          Legacy handling
        </legend>
        <Check
          field="allowLegacy"
          checked={values.allowLegacy}
          onChange={(c) => set('allowLegacy', c)}
          error={errors.fields.allowLegacy}
        >
          Allow legacy: after an ambiguous discover, one bounded <code>initialize</code> for these configured
          URLs only
        </Check>
        <Check
          field="auditLegacy"
          checked={values.auditLegacy}
          onChange={(c) => set('auditLegacy', c)}
          error={errors.fields.auditLegacy}
        >
          Audit legacy revisions served (one initialize per revision, slower cadence; never changes the
          verdict)
        </Check>
        <Check
          field="resolveDns"
          checked={values.resolveDns}
          onChange={(c) => set('resolveDns', c)}
          error={errors.fields.resolveDns}
        >
          Probe every A/AAAA address of the public URL&apos;s host
        </Check>
        <Check
          field="catalog"
          checked={values.catalog}
          onChange={(c) => set('catalog', c)}
          error={errors.fields.catalog}
        >
          List each node&apos;s tools (<code>tools/list</code>) and compare catalogs across nodes
        </Check>
      </fieldset>
      <Field
        field="catalogEvery"
        label="Catalog every Nth cycle"
        error={errors.fields.catalogEvery}
        help="Tools are listed every Nth cycle and whenever a node's era, version or server changes; default 5."
      >
        <input
          type="text"
          inputMode="numeric"
          value={values.catalogEvery}
          onChange={(e) => set('catalogEvery', e.target.value)}
          {...fieldProps('catalogEvery')}
        />
      </Field>
      <Field
        field="legacyVersions"
        label="Legacy revisions accepted"
        error={errors.fields.legacyVersions}
        help="Comma-separated; empty keeps the default set (2025-11-25 … 2024-11-05)."
      >
        <input
          type="text"
          value={values.legacyVersions}
          onChange={(e) => set('legacyVersions', e.target.value)}
          {...fieldProps('legacyVersions')}
        />
      </Field>
      <Field
        field="regions"
        label="Regions"
        error={errors.fields.regions}
        help="Comma-separated regions whose workers must probe it, e.g. eu-west, us-east; empty: every region that has a worker."
      >
        <input
          type="text"
          value={values.regions}
          onChange={(e) => set('regions', e.target.value)}
          {...fieldProps('regions')}
        />
      </Field>
      <div className="field-row">
        <Field
          field="headers"
          label="Request headers"
          error={errors.fields.headers}
          help="One 'Name: value' per line; 'env:NAME' reads the value from the environment. Values are never shown again."
        >
          <textarea
            rows={3}
            value={values.headers}
            onChange={(e) => set('headers', e.target.value)}
            {...fieldProps('headers')}
          />
        </Field>
        <Field
          field="attributionHeader"
          label="Attribution header"
          error={errors.fields.attributionHeader}
          help="Response header naming the node that answered a sample, e.g. x-served-by."
        >
          <input
            type="text"
            value={values.attributionHeader}
            onChange={(e) => set('attributionHeader', e.target.value)}
            {...fieldProps('attributionHeader')}
          />
        </Field>
      </div>
      <Field
        field="tlsCa"
        label="TLS CA bundle"
        error={errors.fields.tlsCa}
        help="The CA its HTTPS nodes' certificates are verified with, instead of the system roots: the PEM, file:/absolute/path or env:NAME. Empty: the system roots."
      >
        <textarea
          rows={2}
          value={values.tlsCa}
          onChange={(e) => set('tlsCa', e.target.value)}
          {...fieldProps('tlsCa')}
        />
      </Field>
      <Check
        field="authEnabled"
        checked={values.authEnabled}
        onChange={(c) => set('authEnabled', c)}
        error={errors.fields.authEnabled}
      >
        OAuth client credentials: get a bearer token for every probe (cached until shortly before it expires)
      </Check>
      {values.authEnabled ? (
        <>
          <div className="field-row">
            <Field
              field="authClientId"
              label="Client ID"
              error={errors.fields.authClientId}
              help="The OAuth client's id."
            >
              <input
                type="text"
                autoComplete="off"
                value={values.authClientId}
                onChange={(e) => set('authClientId', e.target.value)}
                {...fieldProps('authClientId')}
              />
            </Field>
            <Field
              field="authClientSecret"
              label="Client secret"
              error={errors.fields.authClientSecret}
              help="'env:NAME' reads it from the environment at probe time. A literal secret is never shown again."
            >
              <input
                type="password"
                autoComplete="off"
                value={values.authClientSecret}
                onChange={(e) => set('authClientSecret', e.target.value)}
                {...fieldProps('authClientSecret')}
              />
            </Field>
          </div>
          <div className="field-row">
            <Field
              field="authIssuer"
              label="Issuer"
              error={errors.fields.authIssuer}
              help="The authorization server the credential belongs to; required without a token URL."
            >
              <input
                type="url"
                value={values.authIssuer}
                onChange={(e) => set('authIssuer', e.target.value)}
                {...fieldProps('authIssuer')}
              />
            </Field>
            <Field
              field="authScope"
              label="Scope"
              error={errors.fields.authScope}
              help="Optional: the challenge's scope, else the resource's scopes_supported, else none."
            >
              <input
                type="text"
                value={values.authScope}
                onChange={(e) => set('authScope', e.target.value)}
                {...fieldProps('authScope')}
              />
            </Field>
            <Field
              field="authTokenUrl"
              label="Token URL"
              error={errors.fields.authTokenUrl}
              help="Optional: found from the issuer's RFC 8414 metadata."
            >
              <input
                type="url"
                value={values.authTokenUrl}
                onChange={(e) => set('authTokenUrl', e.target.value)}
                {...fieldProps('authTokenUrl')}
              />
            </Field>
            <Field
              field="authResource"
              label="Resource"
              error={errors.fields.authResource}
              help="Optional RFC 8707 resource indicator; default: the public URL."
            >
              <input
                type="url"
                value={values.authResource}
                onChange={(e) => set('authResource', e.target.value)}
                {...fieldProps('authResource')}
              />
            </Field>
          </div>
        </>
      ) : null}
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : mode === 'create' ? 'Register balancer' : 'Save changes'}
        </button>
        <button type="button" className="btn" onClick={() => router.back()}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function FieldError({ field, error }: { field: FormField; error: string | undefined }) {
  if (!error) return null;
  return (
    <span id={`f-${field}-error`} className="field-error" data-testid={`error-${field}`}>
      <Icon name="alert" /> {error}
    </span>
  );
}

function Field(props: {
  field: FormField;
  label: string;
  help: string;
  error: string | undefined;
  children: ReactNode;
}) {
  return (
    <div className="field">
      <label htmlFor={`f-${props.field}`}>{props.label}</label>
      {props.children}
      <FieldError field={props.field} error={props.error} />
      <span id={`f-${props.field}-help`} className="help">
        {props.help}
      </span>
    </div>
  );
}

function Check(props: {
  field: FormField;
  checked: boolean;
  onChange: (checked: boolean) => void;
  error: string | undefined;
  children: ReactNode;
}) {
  return (
    <>
      <label className="check-row" htmlFor={`f-${props.field}`}>
        <input
          type="checkbox"
          id={`f-${props.field}`}
          checked={props.checked}
          onChange={(e) => props.onChange(e.target.checked)}
          aria-invalid={props.error ? true : undefined}
        />
        <span>{props.children}</span>
      </label>
      <FieldError field={props.field} error={props.error} />
    </>
  );
}
