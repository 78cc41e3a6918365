// Runs the diagnose engine off the page's thread. Receives {fingerprints, text} or
// {fingerprints, bytes}; answers with the canonical result. Makes no requests of its own.
/* global TrainwreckEngine */
"use strict";
// The page starts this worker from a Blob holding engine.js followed by this file; loaded
// on its own (as a URL), it fetches the engine itself.
if (typeof TrainwreckEngine === "undefined") importScripts("engine.js");

self.onmessage = (event) => {
  const { fingerprints, text, bytes } = event.data;
  try {
    const started = performance.now();
    const result =
      bytes !== undefined
        ? TrainwreckEngine.diagnoseBytes(new Uint8Array(bytes), fingerprints)
        : TrainwreckEngine.diagnoseText(text, fingerprints);
    self.postMessage({ ok: true, result, json: TrainwreckEngine.canonicalJson(result), ms: performance.now() - started });
  } catch (error) {
    self.postMessage({ ok: false, error: String(error && error.message ? error.message : error) });
  }
};
