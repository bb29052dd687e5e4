/** The claim name of a balancer's cycle (shared by scheduled cycles and probe-now). */
export function balancerSubject(balancerId: string): string {
  return `balancer:${balancerId}`;
}
