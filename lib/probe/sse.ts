// Incremental text/event-stream reader: feed decoded text, get each event's data as it completes.
// Only `data:` matters to the probe; `event:`, `id:` and `retry:` are read past, comments ignored.

export class SseReader {
  private buffer = '';
  private data: string[] = [];
  private sawCr = false;

  /** Returns the data of every event completed by this chunk (empty-data priming events included). */
  push(text: string): string[] {
    const events: string[] = [];
    let input = text;
    // A CR at the end of the previous chunk may be half of a CRLF.
    if (this.sawCr && input.startsWith('\n')) input = input.slice(1);
    this.sawCr = false;
    this.buffer += input;
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const ch = this.buffer.charCodeAt(i);
      if (ch !== 10 && ch !== 13) continue;
      this.takeLine(this.buffer.slice(start, i), events);
      if (ch === 13) {
        if (i + 1 < this.buffer.length) {
          if (this.buffer.charCodeAt(i + 1) === 10) i++;
        } else {
          this.sawCr = true;
        }
      }
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  private takeLine(line: string, events: string[]): void {
    if (line === '') {
      if (this.data.length > 0) events.push(this.data.join('\n'));
      else events.push('');
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== 'data') return;
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    this.data.push(value);
  }
}
