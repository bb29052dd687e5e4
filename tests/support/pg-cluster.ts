// The throwaway PostgreSQL cluster of the tests and the benchmarks (bench/support/pg-cluster.ts), with the
// binaries ERAWATCH_PG_BIN names.
import { setPgBinDir } from '@/bench/support/pg-cluster';

setPgBinDir(process.env.ERAWATCH_PG_BIN);

export * from '@/bench/support/pg-cluster';
