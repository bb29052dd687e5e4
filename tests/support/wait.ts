// A free loopback port and a bounded poll: shared with the benchmarks, which live in bench/support/wait.ts.
export * from '@/bench/support/wait';
