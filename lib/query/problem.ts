// RFC 9457 problem+json as the dashboard reads it: a title, a detail and one message per invalid field,
// keyed by the field's JSON pointer so a form can put each message beside its input.

export interface FieldProblem {
  pointer: string;
  message: string;
}

export class ApiProblem extends Error {
  readonly status: number;
  readonly title: string;
  readonly detail: string | null;
  readonly fields: FieldProblem[];

  constructor(status: number, title: string, detail: string | null, fields: FieldProblem[]) {
    super(detail ? `${title}: ${detail}` : title);
    this.name = 'ApiProblem';
    this.status = status;
    this.title = title;
    this.detail = detail;
    this.fields = fields;
  }

  /** The first message for a pointer or any pointer below it (`/nodeUrls` matches `/nodeUrls/2`). */
  fieldMessage(pointer: string): string | null {
    const hit = this.fields.find((f) => f.pointer === pointer || f.pointer.startsWith(`${pointer}/`));
    return hit ? hit.message : null;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringOf(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/** Normalises a JSON-pointer-ish path: `name`, `/name`, `#/name` and `nodeUrls.0` all become `/name` form. */
export function normalisePointer(raw: string): string {
  const trimmed = raw.replace(/^#/, '');
  if (trimmed.startsWith('/')) return trimmed;
  return `/${trimmed.split('.').join('/')}`;
}

/** Reads the field list of a problem body, accepting `errors[]` ({pointer|path, detail|message}) and `invalid-params[]` ({name, reason}). */
export function readFieldProblems(body: unknown): FieldProblem[] {
  if (!isRecord(body)) return [];
  const fields: FieldProblem[] = [];
  const lists = [body.errors, body['invalid-params'], body.invalidParams];
  for (const list of lists) {
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (!isRecord(item)) continue;
      const where = stringOf(item.pointer) ?? stringOf(item.path) ?? stringOf(item.name);
      const message = stringOf(item.detail) ?? stringOf(item.message) ?? stringOf(item.reason);
      if (where !== null && message !== null) fields.push({ pointer: normalisePointer(where), message });
    }
  }
  return fields;
}

export function problemFromBody(status: number, body: unknown, fallbackTitle: string): ApiProblem {
  const title = (isRecord(body) && stringOf(body.title)) || fallbackTitle;
  const detail = isRecord(body) ? stringOf(body.detail) : null;
  return new ApiProblem(status, title, detail, readFieldProblems(body));
}
