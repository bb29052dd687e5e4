import { Icon } from '@/components/ui/icon';

/** A field's error under it, by its input's id. */
export function FieldError({ id, message }: { id: string; message: string | null }) {
  return message ? (
    <span className="field-error" data-testid={`error-${id}`}>
      <Icon name="alert" /> {message}
    </span>
  ) : null;
}
