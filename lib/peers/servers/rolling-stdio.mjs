// One command line mid-upgrade: the first process launched runs the archive (the real v1 SDK server,
// v1-stdio.mjs), every later one the current v2 SDK server (v2-stdio.mjs). Twin host entries of this
// command line are therefore one legacy and one modern peer.
// node rolling-stdio.mjs --claim FILE [options of v1-stdio.mjs / v2-stdio.mjs]
// The first launch creates FILE (exclusively, so exactly one process wins it, however many start at once).
import { openSync, closeSync } from 'node:fs';

const at = process.argv.indexOf('--claim');
const claim = at === -1 ? undefined : process.argv[at + 1];
if (!claim) {
  console.error('usage: rolling-stdio.mjs --claim FILE [server options]');
  process.exit(2);
}
process.argv.splice(at, 2);
let first = false;
try {
  closeSync(openSync(claim, 'wx'));
  first = true;
} catch {
  first = false;
}
await import(first ? './v1-stdio.mjs' : './v2-stdio.mjs');
