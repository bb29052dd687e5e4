import { describe, expect, it } from 'vitest';
import { normalisePointer, problemFromBody, readFieldProblems } from '@/lib/query/problem';

describe('readFieldProblems', () => {
  it.each([
    [
      { errors: [{ pointer: '/name', detail: 'is required' }] },
      [{ pointer: '/name', message: 'is required' }],
    ],
    [
      { errors: [{ pointer: '/nodeUrls/1', detail: 'must be an http:// or https:// URL' }] },
      [{ pointer: '/nodeUrls/1', message: 'must be an http:// or https:// URL' }],
    ],
    [
      { 'invalid-params': [{ name: 'publicUrl', reason: 'bad' }] },
      [{ pointer: '/publicUrl', message: 'bad' }],
    ],
    [
      { errors: [{ pointer: '#/query/limit', detail: 'too big' }] },
      [{ pointer: '/query/limit', message: 'too big' }],
    ],
    [{ errors: [{ detail: 'no pointer' }, 'junk', null] }, []],
    ['not an object', []],
  ])('reads %j', (body, fields) => {
    expect(readFieldProblems(body)).toEqual(fields);
  });
});

describe('ApiProblem', () => {
  it('finds a field message by pointer, including nested pointers', () => {
    const p = problemFromBody(
      422,
      {
        title: 'Unprocessable Content',
        detail: 'invalid input',
        errors: [
          { pointer: '/nodeUrls/2', detail: 'must be an http:// or https:// URL' },
          { pointer: '/name', detail: 'is required' },
        ],
      },
      'fallback',
    );
    expect(p.status).toBe(422);
    expect(p.message).toBe('Unprocessable Content: invalid input');
    expect(p.fieldMessage('/name')).toBe('is required');
    expect(p.fieldMessage('/nodeUrls')).toBe('must be an http:// or https:// URL');
    expect(p.fieldMessage('/publicUrl')).toBeNull();
  });

  it('uses the fallback title for a body that is not a problem', () => {
    const p = problemFromBody(502, '<html>bad gateway</html>', '502 Bad Gateway');
    expect(p.title).toBe('502 Bad Gateway');
    expect(p.fields).toEqual([]);
  });

  it('normalises dotted and hash paths to JSON pointers', () => {
    expect(normalisePointer('nodeUrls.0')).toBe('/nodeUrls/0');
    expect(normalisePointer('#/name')).toBe('/name');
    expect(normalisePointer('/name')).toBe('/name');
  });
});
