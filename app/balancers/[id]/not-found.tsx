import { NotFoundPage } from '@/components/ui/not-found-page';

export default function BalancerNotFound() {
  return (
    <NotFoundPage
      what="Balancer not found"
      why="No balancer has this id. It may have been deleted, or the link is mistyped."
    />
  );
}
