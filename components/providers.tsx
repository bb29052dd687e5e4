'use client';
import { QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { getQueryClient } from '@/lib/query/make-query-client';

export function Providers({ refreshMs, children }: { refreshMs: number; children: ReactNode }) {
  const client = getQueryClient(refreshMs);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
