import type { Metadata } from 'next';
import { NotFoundPage } from '@/components/ui/not-found-page';

export const metadata: Metadata = { title: { absolute: 'Not found · Erawatch' } };

export default function NotFound() {
  return (
    <NotFoundPage why="There is nothing at this address. Check the link, or start again from the fleet." />
  );
}
