import { describe, expect, it } from 'vitest';
import { SseReader } from '@/lib/probe/sse';

function readAll(chunks: string[]): string[] {
  const reader = new SseReader();
  return chunks.flatMap((c) => reader.push(c));
}

describe('SseReader', () => {
  it.each<[string, string[], string[]]>([
    ['one event', ['event: message\ndata: {"a":1}\n\n'], ['{"a":1}']],
    ['a priming event with ids first', ['id: 1\ndata:\n\nid: 2\nevent: message\ndata: x\n\n'], ['', 'x']],
    ['multi-line data', ['data: a\ndata: b\n\n'], ['a\nb']],
    ['CRLF line ends', ['data: a\r\n\r\n'], ['a']],
    ['CR line ends', ['data: a\r\rdata: b\r\r'], ['a', 'b']],
    ['a CRLF split across chunks', ['data: a\r', '\n\r', '\n'], ['a']],
    ['an event split mid-field', ['da', 'ta: hel', 'lo\n', '\n'], ['hello']],
    ['comments and unknown fields', [': keep-alive\nretry: 10\nfoo: bar\ndata: z\n\n'], ['z']],
    ['no space after the colon', ['data:tight\n\n'], ['tight']],
    ['an unterminated event is not dispatched', ['data: partial\n'], []],
  ])('%s', (_label, chunks, events) => {
    expect(readAll(chunks)).toEqual(events);
  });
});
