// node benchmarks/bench_engine.js FINGERPRINTS LOG → {"best_seconds": …}: the browser engine's
// time on a log (V8, as in Chromium), best of 3 runs, bytes already in memory.
"use strict";
const fs = require("node:fs");
const engine = require("../site_overrides/assets/diagnose/engine.js");

const fingerprints = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const bytes = new Uint8Array(fs.readFileSync(process.argv[3]));
let best = Infinity;
let result = null;
for (let run = 0; run < 3; run++) {
  const started = process.hrtime.bigint();
  result = engine.diagnoseBytes(bytes, fingerprints);
  best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e9);
}
process.stdout.write(JSON.stringify({ best_seconds: best, top: result.matches.length ? result.matches[0].id : null }) + "\n");
