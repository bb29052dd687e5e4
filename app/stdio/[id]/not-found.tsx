import { NotFoundPage } from '@/components/ui/not-found-page';

export default function StdioNotFound() {
  return (
    <NotFoundPage
      what="stdio server not found"
      why="No stdio server has this id. It may have been removed from the config file."
      back={{ href: '/stdio', label: 'Back to the stdio servers' }}
    />
  );
}
