// The browser engine reproduces the Python engine's canonical JSON byte for byte on every case.
// Expected files are written by the Python engine (`make golden`); run with `node --test tests/js/`.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");

const engine = require("../../site_overrides/assets/diagnose/engine.js");

const here = path.join(__dirname, "..", "diagnose");
const fingerprints = JSON.parse(fs.readFileSync(path.join(here, "fingerprints.json"), "utf8"));
const casesDir = path.join(here, "cases");
const cases = fs.readdirSync(casesDir).filter((name) => name.endsWith(".log")).sort();

test("there are conformance cases", () => {
  assert.ok(cases.length >= 19, `only ${cases.length} cases`);
});

for (const name of cases) {
  test(`case ${name}`, () => {
    const bytes = new Uint8Array(fs.readFileSync(path.join(casesDir, name)));
    const expected = fs.readFileSync(path.join(casesDir, name.replace(/\.log$/, ".json")), "utf8");
    const actual = engine.canonicalJson(engine.diagnoseBytes(bytes, fingerprints)) + "\n";
    assert.equal(actual, expected);
  });
}

test("shuffled fingerprint order gives the same output", () => {
  const shuffled = JSON.parse(JSON.stringify(fingerprints));
  shuffled.entries.reverse();
  for (const entry of shuffled.entries) entry.fingerprints.reverse();
  for (const name of cases) {
    const bytes = new Uint8Array(fs.readFileSync(path.join(casesDir, name)));
    assert.equal(
      engine.canonicalJson(engine.diagnoseBytes(bytes, shuffled)),
      engine.canonicalJson(engine.diagnoseBytes(bytes, fingerprints)),
      name,
    );
  }
});

test("a hostile log stays text in the result", () => {
  const bytes = new Uint8Array(fs.readFileSync(path.join(casesDir, "hostile_html.log")));
  const result = engine.diagnoseBytes(bytes, fingerprints);
  assert.equal(result.matches[0].id, "cuda-illegal-memory-access");
  assert.ok(result.matches[0].evidence.some((item) => item.text.includes("<img src=x onerror=alert(1)>")));
});
