// The site's search worker (site_overrides/assets/search/worker.js), run in Node.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const fs = require("node:fs");

const search = require(path.join(__dirname, "../../site_overrides/assets/search/worker.js"));
const SEPARATOR = "[\\s\\-,:;!=\\[\\]()\"`/_'<>|]+|\\.(?!\\d)|&[lg]t;";

const docs = [
  { location: "", title: "Trainwreck", text: "<p>An encyclopedia of training failures.</p>" },
  { location: "#how-to-use", title: "How to use", text: "<p>Paste the error into the search box.</p>" },
  {
    location: "entries/cuda-oom/",
    title: "CUDA out of memory during training",
    text: "The caching allocator cannot find a free block. <code>torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.</code>",
  },
  {
    location: "entries/nccl-timeout/",
    title: "NCCL watchdog timeout",
    text: "<code>Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE)</code> after a rank ran out of memory &amp; died.",
  },
];

function first(index, query) {
  const { items } = search.search(index, query);
  return items.length ? items[0][0].location : null;
}

test("a pasted error string finds its entry first", () => {
  const index = search.buildIndex(docs, SEPARATOR);
  assert.equal(first(index, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."), "entries/cuda-oom/");
  assert.equal(first(index, "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1"), "entries/nccl-timeout/");
});

test("query syntax characters are plain separators", () => {
  const index = search.buildIndex(docs, SEPARATOR);
  assert.equal(first(index, "OutOfMemoryError:"), "entries/cuda-oom/");
  assert.equal(first(index, "-caching -allocator"), "entries/cuda-oom/");
  assert.equal(first(index, "OpType=ALLREDUCE)"), "entries/nccl-timeout/");
});

test("the word being typed matches as a prefix; finished words match whole", () => {
  const index = search.buildIndex(docs, SEPARATOR);
  assert.equal(first(index, "watchd"), "entries/nccl-timeout/");
  assert.match(search.search(index, "watchd").items[0][0].title, /<mark>watchdog<\/mark>/i);
  assert.deepEqual(search.search(index, "watchd ").items, []);
});

test("words match only whole words, as the separator splits them", () => {
  const index = search.buildIndex(docs, SEPARATOR);
  // "NCCL" is inside "WorkNCCL(" in the timeout entry's text: not a word of its own there.
  const [group] = search.search(index, "worknccl ").items;
  assert.equal(group[0].location, "entries/nccl-timeout/");
  assert.deepEqual(search.search(index, "orknccl ").items, []);
  // "2.00" is one word: a dot before a digit does not split.
  assert.equal(first(index, "2.00 "), "entries/cuda-oom/");
  assert.deepEqual(search.search(index, "00 ").items, []);
  // Words are found in a document's text and title alike, whatever the case.
  assert.equal(first(index, "OUTOFMEMORYERROR "), "entries/cuda-oom/");
});

test("a title match outranks a text match", () => {
  const index = search.buildIndex(docs, SEPARATOR);
  const { items } = search.search(index, "memory");
  assert.deepEqual(
    items.map((group) => group[0].location),
    ["entries/cuda-oom/", "entries/nccl-timeout/"],
  );
});

test("results say which words are missing, in the theme's shape", () => {
  const index = search.buildIndex(docs, SEPARATOR);
  const [group] = search.search(index, "allocator zebra ").items;
  assert.equal(group[0].location, "entries/cuda-oom/");
  assert.deepEqual(group[0].terms, { allocator: true, zebra: false });
  assert.ok(group[0].score > 0);
  assert.match(group[0].text, /<mark>allocator<\/mark>/);
});

test("a matching section is grouped under its page, page first", () => {
  const index = search.buildIndex(docs, SEPARATOR);
  const [group] = search.search(index, "paste").items;
  assert.deepEqual(group.map((item) => item.location), ["", "#how-to-use"]);
  assert.equal(group[0].score, 0);
});

test("highlighting marks whole words, never tags, entities or parts of words", () => {
  const splitter = new RegExp(SEPARATOR, "u");
  const marked = new Set(["lt", "amp", "code", "nccl"]);
  assert.equal(
    search.highlight("<code>lt amp</code> &amp; &lt; NCCL WorkNCCL", (word) => marked.has(word), splitter),
    "<code><mark>lt</mark> <mark>amp</mark></code> &amp; &lt; <mark>NCCL</mark> WorkNCCL",
  );
});

test("text in the documents' HTML matches what people type", () => {
  const index = search.buildIndex(
    [
      { location: "a/", title: "Duplicate GPU", text: "<code>rank 1 and rank 0 both on CUDA device &lt;busId&gt;</code>" },
      { location: "b/", title: "Other", text: "<p>R&amp;D notes</p>" },
    ],
    SEPARATOR,
  );
  assert.equal(first(index, "both on CUDA device <busId>"), "a/");
  assert.equal(first(index, "r&d "), "b/");
  assert.deepEqual(search.search(index, "code ").items, []); // tag names are not text
});

test("an entry's hidden words are found like its text but never shown", () => {
  // generator/search.py keeps the other wordings of an error in `words`.
  const entry = {
    location: "entries/cuda-oom/",
    title: "CUDA out of memory during training",
    text: "<code>torch.OutOfMemoryError: CUDA out of memory.</code> Lower the batch",
    words: "runtimeerror 14.75 total capacity r&amp;d",
  };
  const index = search.buildIndex([...docs.slice(0, 2), entry], SEPARATOR);
  const [group] = search.search(index, "RuntimeError: CUDA out of memory. (14.75 GiB total capacity)").items;
  assert.equal(group[0].location, "entries/cuda-oom/");
  assert.deepEqual(group[0].terms, { runtimeerror: true, cuda: true, out: true, of: true, memory: true, "14.75": true, gib: false, total: true, capacity: true });
  assert.equal(group[0].text, "<code>torch.OutOfMemoryError: <mark>CUDA</mark> <mark>out</mark> <mark>of</mark> <mark>memory</mark>.</code> Lower the batch");
  assert.equal(first(index, "r&d "), "entries/cuda-oom/");
  // The words follow the text as a separate word: the text's last word does not run into them.
  assert.deepEqual(search.search(index, "batchruntimeerror ").items, []);
});

test("every matching page is counted; the first hundred have their words marked", () => {
  const many = Array.from({ length: 150 }, (_, n) => ({ location: `entries/e${n}/`, title: `Failure ${n}`, text: "CUDA error" }));
  const { items } = search.search(search.buildIndex(many, SEPARATOR), "cuda ");
  assert.equal(items.length, 150);
  assert.match(items[0][0].text, /<mark>CUDA<\/mark>/);
  assert.equal(items[149][0].text, "CUDA error");
});

test("an empty or separator-only query has no results", () => {
  const index = search.buildIndex(docs, SEPARATOR);
  assert.deepEqual(search.search(index, "").items, []);
  assert.deepEqual(search.search(index, " : - ").items, []);
});

test("the separator is the one mkdocs.yml gives the theme", () => {
  const config = fs.readFileSync(path.join(__dirname, "../../mkdocs.yml"), "utf8");
  const quoted = config.match(/separator: '(.*)'/)[1].replace(/''/g, "'");
  assert.equal(quoted, SEPARATOR);
});
