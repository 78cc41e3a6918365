/*
 * Trainwreck search worker: stands in for the theme's Lunr worker and speaks its protocol
 * (SETUP → READY, QUERY → RESULT), so the theme's search box and result list work unchanged.
 *
 * Why not Lunr: it builds its index in the browser on every page load, which took 10 s at
 * 10,000 entries. This worker keeps a plain inverted index (term → documents) that builds in a
 * fraction of that, and reads the query as words only: pasted error text is full of characters
 * (":", "-", "*", "^") that Lunr's query syntax treats as operators.
 *
 * Documents: the theme's index of the hand-written pages (sent with SETUP) plus one document
 * per entry from search/entries.json (written by generator/search.py).
 */
(function (root, factory) {
  if (typeof module === "object" && module.exports) module.exports = factory();
  else root.TrainwreckSearch = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  const MESSAGE = { SETUP: 0, READY: 1, QUERY: 2, RESULT: 3 };
  const MAX_QUERY_TERMS = 64;
  const MAX_PREFIX_EXPANSIONS = 200;
  const MAX_RESULTS = 100;
  const TITLE_WEIGHT = 3;
  const PREFIX_WEIGHT = 0.5;
  const TAG = /<[^>]*>/g;
  const ENTITY = /&(?:amp|quot|#39);/g;

  function tokens(text, separator) {
    const words = [];
    for (const word of text.replace(TAG, " ").replace(ENTITY, " ").toLowerCase().split(separator)) {
      if (word) words.push(word);
    }
    return words;
  }

  function buildIndex(docs, separator) {
    const splitter = new RegExp(separator, "u");
    const postings = new Map(); // term → [doc, weight, doc, weight, ...]
    docs.forEach((doc, number) => {
      const weights = new Map();
      for (const term of tokens(doc.text || "", splitter)) weights.set(term, 1);
      for (const term of tokens(doc.title || "", splitter)) weights.set(term, TITLE_WEIGHT);
      for (const [term, weight] of weights) {
        let list = postings.get(term);
        if (list === undefined) postings.set(term, (list = []));
        list.push(number, weight);
      }
    });
    const terms = [...postings.keys()].sort();
    return { docs, splitter, postings, terms, parents: parentsOf(docs) };
  }

  function parentsOf(docs) {
    // A section's location is its page's location plus "#anchor"; the page comes first.
    const pages = new Map();
    return docs.map((doc, number) => {
      const page = doc.location.split("#")[0];
      if (!pages.has(page)) pages.set(page, number);
      return pages.get(page);
    });
  }

  function expansions(index, word, exact) {
    // The word itself, and (for the word being typed) the terms it starts.
    const found = index.postings.has(word) ? [[word, 1]] : [];
    if (exact) return found;
    let low = 0;
    let high = index.terms.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (index.terms[middle] < word) low = middle + 1;
      else high = middle;
    }
    for (let at = low; at < index.terms.length && found.length < MAX_PREFIX_EXPANSIONS; at++) {
      const term = index.terms[at];
      if (!term.startsWith(word)) break;
      if (term !== word) found.push([term, PREFIX_WEIGHT]);
    }
    return found;
  }

  function search(index, query) {
    const words = [...new Set(tokens(query, index.splitter))].slice(0, MAX_QUERY_TERMS);
    if (!words.length) return { items: [] };
    const typing = !/\s$/u.test(query);
    const scores = new Map();
    const found = new Map(); // doc → {words: query words it holds, terms: its terms that matched}
    const total = index.docs.length;
    words.forEach((word, position) => {
      const last = typing && position === words.length - 1;
      for (const [term, closeness] of expansions(index, word, !last)) {
        const list = index.postings.get(term);
        const rarity = Math.log(1 + total / (list.length / 2));
        for (let at = 0; at < list.length; at += 2) {
          const doc = list[at];
          scores.set(doc, (scores.get(doc) || 0) + rarity * list[at + 1] * closeness);
          if (!found.has(doc)) found.set(doc, { words: new Set(), terms: new Set() });
          found.get(doc).words.add(word);
          found.get(doc).terms.add(term);
        }
      }
    });
    const ranked = [...scores.keys()].sort((a, b) => scores.get(b) - scores.get(a) || a - b);
    return { items: grouped(index, ranked, scores, found, words) };
  }

  function grouped(index, ranked, scores, found, words) {
    // The theme lists one item per page: the page first, then its matching sections.
    const groups = new Map();
    for (const doc of ranked) {
      const parent = index.parents[doc];
      if (!groups.has(parent)) {
        if (groups.size === MAX_RESULTS) continue;
        groups.set(parent, []);
      }
      groups.get(parent).push(resultItem(index, doc, scores.get(doc), found.get(doc), words));
    }
    for (const [parent, items] of groups) {
      if (!items.some((item) => item.location === index.docs[parent].location))
        items.unshift(resultItem(index, parent, 0, { words: new Set(), terms: new Set() }, words));
    }
    return [...groups.values()];
  }

  function resultItem(index, doc, score, held, words) {
    const source = index.docs[doc];
    const terms = {};
    for (const word of words) terms[word] = held.words.has(word);
    return {
      location: source.location,
      title: highlight(source.title || "", held.terms, index.splitter),
      text: highlight(source.text || "", held.terms, index.splitter),
      score,
      terms,
    };
  }

  function highlight(html, marked, splitter) {
    // Wraps whole matched words in <mark>, in text only: never inside a tag or an entity.
    if (!marked.size) return html;
    const words = new RegExp("(" + splitter.source + ")", "u");
    return html
      .split(/(<[^>]*>|&[#\w]+;)/u)
      .map((part, at) =>
        at % 2
          ? part
          : part
              .split(words)
              .map((word, place) => (place % 2 === 0 && marked.has(word.toLowerCase()) ? `<mark>${word}</mark>` : word))
              .join(""),
      )
      .join("");
  }

  function attachToWorker(scope) {
    let index = null;
    let ready = null;
    scope.addEventListener("message", async (event) => {
      const message = event.data;
      if (message.type === MESSAGE.SETUP) {
        ready = setUp(message.data).then((built) => (index = built));
        await ready;
        scope.postMessage({ type: MESSAGE.READY });
      } else if (message.type === MESSAGE.QUERY) {
        if (ready) await ready;
        const data = index ? search(index, String(message.data)) : { items: [] };
        scope.postMessage({ type: MESSAGE.RESULT, data });
      }
    });
  }

  async function setUp({ config, docs }) {
    let entries = [];
    try {
      const response = await fetch(new URL("../../search/entries.json", self.location.href));
      if (response.ok) entries = (await response.json()).docs;
    } catch (error) {
      console.warn("Trainwreck search: entries could not be loaded", error);
    }
    return buildIndex([...docs, ...entries], config.separator);
  }

  if (typeof WorkerGlobalScope !== "undefined" && self instanceof WorkerGlobalScope) attachToWorker(self);
  return { buildIndex, search, highlight, tokens, MESSAGE };
});
