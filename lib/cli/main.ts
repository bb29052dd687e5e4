import { z } from 'zod';
export async function main(argv: string[]): Promise<number> {
  console.log('erawatch', argv, z.string().parse('ok'));
  return 0;
}
