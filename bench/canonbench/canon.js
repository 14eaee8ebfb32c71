// canon.js: the npm `canonicalize` package (RFC 8785) on the same input as
// bench/canonbench: node canon.js FILE.jsonl ROUNDS [OUT]. Each line is
// JSON.parse'd then canonicalized; only that loop is timed. Prints
// "<MB/s> <seconds> <input bytes>" (MB = 10^6 bytes of input) and, with
// OUT, writes the canonical lines of the last pass.
'use strict';
const fs = require('fs');
const canonicalize = require('canonicalize');

const [file, roundsArg, out] = process.argv.slice(2);
const rounds = Number(roundsArg || 3);
const data = fs.readFileSync(file, 'utf8');
const bytes = Buffer.byteLength(data);
const lines = data.replace(/\n$/, '').split('\n');
const results = new Array(lines.length);
const start = process.hrtime.bigint();
for (let r = 0; r < rounds; r++) {
  for (let i = 0; i < lines.length; i++) {
    results[i] = canonicalize(JSON.parse(lines[i]));
  }
}
const secs = Number(process.hrtime.bigint() - start) / 1e9;
console.log(`${(bytes * rounds / secs / 1e6).toFixed(2)} ${secs.toFixed(3)} ${bytes}`);
if (out) fs.writeFileSync(out, results.join('\n') + '\n');
