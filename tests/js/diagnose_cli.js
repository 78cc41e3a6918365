// node tests/js/diagnose_cli.js FINGERPRINTS.json LOG... → one canonical JSON result per line.
// Used by pytest to compare the two engines on generated and real logs.
"use strict";
const fs = require("node:fs");
const engine = require("../../site_overrides/assets/diagnose/engine.js");

const [fingerprintsPath, ...logs] = process.argv.slice(2);
const fingerprints = JSON.parse(fs.readFileSync(fingerprintsPath, "utf8"));
for (const log of logs) {
  const bytes = new Uint8Array(fs.readFileSync(log));
  process.stdout.write(engine.canonicalJson(engine.diagnoseBytes(bytes, fingerprints)) + "\n");
}
