// The Diagnose page: paste a log or drop a file; the match runs locally in a Web Worker.
// Everything from the log is rendered with textContent, never as HTML. The only requests
// are same-origin static files (this script, the worker, the engine and fingerprints.json).
"use strict";
(function () {
  const TIME_BUDGET_MS = 15000;
  const script = document.currentScript;
  const base = script.src.replace(/page\.js(\?.*)?$/, "");

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "class") node.className = value;
      else node.setAttribute(key, value);
    }
    for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    return node;
  }

  function start() {
    const app = document.getElementById("diagnose-app");
    if (!app) return;
    const siteRoot = new URL(app.dataset.siteRoot || "./", location.href);
    const fingerprintsUrl = new URL(app.dataset.fingerprints, location.href);
    const reportBase = app.dataset.reportUrl || "";

    const textarea = el("textarea", {
      id: "diagnose-log",
      rows: "14",
      spellcheck: "false",
      placeholder: "Paste a training log or traceback here, or drop a log file on this box.",
      "aria-label": "Log to diagnose",
    });
    const file = el("input", { type: "file", id: "diagnose-file", "aria-label": "Choose a log file" });
    const run = el("button", { type: "button", id: "diagnose-run", class: "md-button md-button--primary" }, "Diagnose");
    const status = el("p", { id: "diagnose-status", role: "status" });
    const results = el("div", { id: "diagnose-results" });
    app.append(textarea, el("div", { class: "diagnose-controls" }, run, el("label", {}, "or open a file: ", file)), status, results);

    let fingerprints = null;
    let workerUrl = null;
    let pendingBytes = null;
    // Everything the matcher needs is fetched once, up front, so the page keeps working
    // with the network cut: the worker is started from a local Blob, not from the server.
    const text = (url) =>
      fetch(url, { credentials: "same-origin" }).then((response) => {
        if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
        return response.text();
      });
    const loading = Promise.all([text(fingerprintsUrl), text(base + "engine.js"), text(base + "worker.js")])
      .then(([data, engineSource, workerSource]) => {
        const blob = new Blob([engineSource, "\n", workerSource], { type: "text/javascript" });
        workerUrl = URL.createObjectURL(blob);
        fingerprints = JSON.parse(data);
        status.textContent = `${fingerprints.entries.length} entries loaded. Your log stays in this browser.`;
      })
      .catch((error) => {
        status.textContent = `Could not load the fingerprints (${error.message}).`;
      });

    textarea.addEventListener("input", () => {
      pendingBytes = null;
    });
    textarea.addEventListener("dragover", (event) => event.preventDefault());
    textarea.addEventListener("drop", (event) => {
      event.preventDefault();
      if (event.dataTransfer.files.length) readFile(event.dataTransfer.files[0]);
    });
    file.addEventListener("change", () => {
      if (file.files.length) readFile(file.files[0]);
    });
    run.addEventListener("click", () => loading.then(diagnose));

    function readFile(chosen) {
      chosen.arrayBuffer().then((buffer) => {
        pendingBytes = buffer;
        const preview = new TextDecoder().decode(new Uint8Array(buffer, 0, Math.min(buffer.byteLength, 200000)));
        textarea.value = preview + (buffer.byteLength > 200000 ? "\n… (file continues; the whole file is diagnosed)" : "");
        status.textContent = `${chosen.name}: ${buffer.byteLength.toLocaleString()} bytes read locally.`;
        loading.then(diagnose);
      });
    }

    function diagnose() {
      if (!fingerprints) return;
      results.replaceChildren();
      status.textContent = "Matching…";
      const worker = new Worker(workerUrl);
      const timer = setTimeout(() => {
        worker.terminate();
        status.textContent = `Stopped after ${TIME_BUDGET_MS / 1000} s. Try the command line: trainwreck diagnose train.log`;
      }, TIME_BUDGET_MS);
      worker.onmessage = (event) => {
        clearTimeout(timer);
        worker.terminate();
        if (!event.data.ok) {
          status.textContent = `The matcher failed: ${event.data.error}`;
          return;
        }
        const lines = event.data.result.lines;
        const noun = lines === 1 ? "line" : "lines";
        status.textContent = `Read ${lines.toLocaleString()} ${noun} in ${Math.round(event.data.ms)} ms, locally.`;
        render(event.data.result, event.data.json);
      };
      const message = { fingerprints };
      if (pendingBytes) message.bytes = pendingBytes.slice(0);
      else message.text = textarea.value;
      worker.postMessage(message);
    }

    function render(result, json) {
      const out = [];
      if (result.confident) {
        out.push(el("h2", {}, result.matches.length === 1 ? "1 matching entry" : `${result.matches.length} matching entries, best first`));
      } else {
        out.push(el("h2", {}, "No confident match"));
      }
      result.matches.forEach((match, index) => out.push(renderMatch(match, index + 1)));
      if (result.first_failing_rank !== null) {
        out.push(el("p", { class: "diagnose-rank" }, "First failing rank: ", el("strong", {}, String(result.first_failing_rank))));
      }
      if (showsUnmatched(result)) out.push(renderUnmatched(result));
      const raw = el("details", {}, el("summary", {}, "Canonical JSON (same as trainwreck diagnose --json)"), el("pre", {}, el("code", { id: "diagnose-json" }, json)));
      out.push(raw);
      results.replaceChildren(...out);
    }

    // As _shows_unmatched in generator/report.py: also under a confident best match that ranks
    // below other failures (negative priority), whose log may hide a cause no entry knows; a
    // traceback's header alone is not one.
    function showsUnmatched(result) {
      if (!result.confident) return true;
      return result.matches[0].score.priority < 0 && result.unmatched_errors.some((item) => namesAnError(item.text));
    }

    // As _names_an_error in generator/report.py: a traceback's header only says an exception follows.
    function namesAnError(text) {
      return !text.includes("Traceback (most recent call last)");
    }

    // As _headline in generator/report.py.
    function headline(result) {
      const texts = result.unmatched_errors.map((item) => item.text);
      return texts.find(namesAnError) ?? texts[0] ?? "";
    }

    function renderMatch(match, number) {
      const link = el("a", { href: new URL(match.url, siteRoot).href }, match.title);
      const score = match.score;
      const why =
        (match.explained_by.length
          ? `A symptom, explained by ${match.explained_by.join(", ")}`
          : match.role === "symptom"
            ? "A symptom; the line that names its cause is not in this log (it is often printed above, or cut off)"
            : "Root cause") +
        `; specificity ${score.specificity}` +
        (score.priority ? `; priority ${score.priority}` : "") +
        `; first seen on line ${score.first_line}; ${score.fingerprints_hit} of ${score.fingerprints_total} fingerprints.`;
      const evidence = el("ul", { class: "diagnose-evidence" });
      // A line that several fingerprints matched is shown once, with each fingerprint's role.
      for (const group of byLine(match.evidence)) {
        const roles = group.map((item) => item.role + repeats(item)).join("; ");
        evidence.append(
          el("li", {}, el("span", { class: "diagnose-line" }, `line ${group[0].line}`), " ", el("code", {}, group[0].text), el("small", {}, ` ${roles}`)),
        );
      }
      if (match.more_evidence) evidence.append(el("li", {}, `… and ${match.more_evidence} more`));
      // As _fix in generator/report.py: a symptom that another match explains shows no fix of its own.
      const fix = match.explained_by.length ? [] : [el("p", { class: "diagnose-fix" }, el("strong", {}, "Fix: "), ...codeSpans(match.fix))];
      return el("section", { class: `diagnose-match diagnose-${match.role}`, "data-entry": match.id }, el("h3", {}, `${number}. `, link), ...fix, el("p", {}, why), evidence);
    }

    // The fix summary is one line of Markdown; only its code spans are rendered (a run of backticks
    // closed by a run of the same length), and everything stays a text node.
    function codeSpans(text) {
      const nodes = [];
      let last = 0;
      for (const span of text.matchAll(/(`+)(?!`)(.+?)(?<!`)\1(?!`)/g)) {
        nodes.push(text.slice(last, span.index), el("code", {}, span[2].trim()));
        last = span.index + span[0].length;
      }
      nodes.push(text.slice(last));
      return nodes;
    }

    function byLine(evidence) {
      const groups = [];
      for (const item of evidence) {
        const last = groups[groups.length - 1];
        if (last && last[0].line === item.line) last.push(item);
        else groups.push([item]);
      }
      return groups;
    }

    function repeats(item) {
      let text = item.count > 1 ? ` · ${item.count} times (lines ${item.line}–${item.last_line})` : "";
      if (item.ranks.length) text += ` · rank${item.ranks.length > 1 ? "s" : ""} ${item.ranks.join(", ")}`;
      return text;
    }

    function renderUnmatched(result) {
      const box = el("section", { class: "diagnose-unmatched" });
      if (result.unmatched_errors.length) {
        box.append(el("p", {}, "Error-looking lines that matched no entry:"));
        const list = el("ul", {});
        for (const item of result.unmatched_errors) {
          list.append(el("li", {}, el("span", { class: "diagnose-line" }, `line ${item.line}`), " ", el("code", {}, item.text), item.count > 1 ? ` (×${item.count})` : ""));
        }
        box.append(list);
      } else {
        box.append(el("p", {}, "No error-looking lines were found."));
      }
      if (reportBase) {
        const first = headline(result).slice(0, 200);
        const params = new URLSearchParams({ title: first ? `New failure: ${first.slice(0, 80)}` : "New failure", error: first });
        box.append(el("p", {}, "Not in the encyclopedia yet? ", el("a", { href: `${reportBase}&${params}`, rel: "noopener", target: "_blank", id: "diagnose-report" }, "Report a new failure"), " (opens GitHub; nothing is sent until you submit)."));
      }
      return box;
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
