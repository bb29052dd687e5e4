// `erawatch bench <name> [args]` runs bench/<name>.ts, which exports `run(argv)` and prints its figures.
const BENCHES = ['probe', 'poller', 'api', 'ui', 'rate-limit'] as const;

export async function run(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const names = name ? [name] : [...BENCHES];
  for (const n of names) {
    if (!(BENCHES as readonly string[]).includes(n)) {
      process.stderr.write(`erawatch bench: unknown benchmark '${n}' (one of: ${BENCHES.join(', ')})\n`);
      return 2;
    }
  }
  let status = 0;
  for (const n of names) {
    process.stdout.write(`\n== bench ${n} ==\n`);
    const mod = (await import(`../../../bench/${n}.ts`)) as { run(argv: string[]): Promise<number> };
    status = Math.max(status, await mod.run(rest));
  }
  return status;
}
