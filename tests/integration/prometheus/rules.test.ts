// The shipped Prometheus files pass Debian's promtool 2.42: the rules check, their unit tests, and the
// example scrape config (with its read-token file present).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runPromtool } from '@/tests/support/prometheus';

const docs = path.resolve(import.meta.dirname, '../../../docs/prometheus');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-promtool-'));

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('shipped Prometheus files', () => {
  it('promtool check rules passes on erawatch.rules.yaml', () => {
    const run = runPromtool(['check', 'rules', path.join(docs, 'erawatch.rules.yaml')]);
    expect(run.output).toContain('SUCCESS: 6 rules found');
    expect(run.code).toBe(0);
  });

  it('promtool test rules passes on erawatch.rules.test.yaml', () => {
    const run = runPromtool(['test', 'rules', 'erawatch.rules.test.yaml'], undefined, docs);
    expect(run.output).toContain('SUCCESS');
    expect(run.code).toBe(0);
  });

  it('the unit tests fail when a rule is weakened, so they test something', () => {
    const rules = fs.readFileSync(path.join(docs, 'erawatch.rules.yaml'), 'utf8');
    const tests = fs.readFileSync(path.join(docs, 'erawatch.rules.test.yaml'), 'utf8');
    for (const [from, to] of [
      ['for: 15m', 'for: 5m'],
      ['unless on (balancer)', 'or on (balancer)'],
      ['(erawatch_gate_open) == 0', '(erawatch_gate_open) == 1'],
      ['erawatch_poller_last_cycle_age_seconds) > 300', 'erawatch_poller_last_cycle_age_seconds) > 3000'],
    ] as const) {
      expect(rules).toContain(from);
      fs.writeFileSync(path.join(dir, 'erawatch.rules.yaml'), rules.replace(from, to));
      fs.writeFileSync(path.join(dir, 'erawatch.rules.test.yaml'), tests);
      const run = runPromtool(['test', 'rules', 'erawatch.rules.test.yaml'], undefined, dir);
      expect(run.code, `${from} -> ${to}`).not.toBe(0);
      expect(run.output).toContain('FAILED');
    }
  });

  it('promtool check config passes on the example scrape config once its token file exists', () => {
    const example = fs.readFileSync(path.join(docs, 'prometheus.example.yml'), 'utf8');
    expect(example).toMatch(/credentials_file: \/etc\/prometheus\/erawatch-read-token/);
    const tokenFile = path.join(dir, 'erawatch-read-token');
    fs.writeFileSync(tokenFile, 'ewt_read_example\n', { mode: 0o600 });
    fs.copyFileSync(path.join(docs, 'erawatch.rules.yaml'), path.join(dir, 'erawatch.rules.yaml'));
    const config = path.join(dir, 'prometheus.yml');
    fs.writeFileSync(config, example.replaceAll('/etc/prometheus/erawatch-read-token', tokenFile));
    const run = runPromtool(['check', 'config', config]);
    expect(run.output).toContain('SUCCESS');
    expect(run.code).toBe(0);
  });
});
