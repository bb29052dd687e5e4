// Broken stdio "servers" for the fault tests: none of them is a legacy server, each is broken.
// node fault-stdio.mjs --fault garbage|exit|silent|banner [--record FILE] [--ready FILE]
//   garbage: answers every line with text that is not JSON-RPC;
//   exit:    exits at once with status 3;
//   silent:  reads stdin and never answers;
//   banner:  prints a banner line, then answers every line with a valid-looking JSON object that is not JSON-RPC.
// --ready FILE is created once stdin is being read, so a test can start its deadlines after the process did.
import { appendFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { fault: { type: 'string' }, record: { type: 'string' }, ready: { type: 'string' } },
});
const fault = values.fault;
if (!['garbage', 'exit', 'silent', 'banner'].includes(fault ?? '')) {
  console.error(`unknown fault ${fault}`);
  process.exit(2);
}
if (fault === 'exit') process.exit(3);
if (fault === 'banner') process.stdout.write('Archive server ready on stdio\n');

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (values.record) appendFileSync(values.record, line + '\n');
  if (fault === 'garbage') process.stdout.write('<html>500 Internal Server Error</html>\n');
  if (fault === 'banner') process.stdout.write(JSON.stringify({ status: 'ok', echo: line.length }) + '\n');
});
if (values.ready) writeFileSync(values.ready, `${process.pid}\n`);
// Keeps a silent process alive even once stdin closes, as a hung server would.
if (fault === 'silent') setInterval(() => {}, 60_000);
