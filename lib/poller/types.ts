import type { ProbeOptions, ProbeTarget, Verdict } from '@/lib/probe/types';

/** Probes one node or sample; never throws for a server's fault (the verdict says what went wrong). */
export type ProbeFn = (target: ProbeTarget, options: ProbeOptions) => Promise<Verdict>;

/** Every A/AAAA address of a host name. Throws when the name does not resolve. */
export type ResolveFn = (hostname: string) => Promise<string[]>;

export type Clock = () => number;

export type { ReverseFn } from './reverse-dns';
