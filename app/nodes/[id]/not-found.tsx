import { NotFoundPage } from '@/components/ui/not-found-page';

export default function NodeNotFound() {
  return (
    <NotFoundPage
      what="Node not found"
      why="No node has this id. Its balancer may have been deleted, or the node left the balancer and was pruned."
    />
  );
}
