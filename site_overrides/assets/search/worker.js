/*
 * Trainwreck search worker: stands in for the theme's Lunr worker and speaks its protocol
 * (SETUP → READY, QUERY → RESULT), so the theme's search box and result list work unchanged.
 *
 * Why not Lunr: it builds its index in the browser on every page load, which took 10 s at
 * 10,000 entries. This worker builds no index at all: it keeps one lowercase string of all titles
 * and one of all texts, and finds a query word with indexOf, checking that each hit starts (and,
 * for a finished word, ends) at a word boundary as the theme's separator defines it. Setting up
 * is one pass over the text; a search scans it once per new word (each word's hits are kept).
 * The query is read as words only: pasted error text is full of characters (":", "-", "*",
 * "^") that Lunr's query syntax treats as operators.
 *
 * Documents: the theme's index of the hand-written pages (sent with SETUP) plus one document
 * per entry from search/entries.json (written by generator/search.py). An entry document may
 * also have `words`: searched as part of its text, never shown.
 */
(function (root, factory) {
  if (typeof module === "object" && module.exports) module.exports = factory();
  else root.TrainwreckSearch = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  const MESSAGE = { SETUP: 0, READY: 1, QUERY: 2, RESULT: 3 };
  const MAX_QUERY_TERMS = 64;
  const MAX_RESULTS = 1000; // the theme shows how many pages match, and lists them as you scroll
  const MAX_HIGHLIGHTED = 100; // matched words are marked in the first results only
  const MAX_REMEMBERED_WORDS = 1000;
  const TITLE_WEIGHT = 3;
  const PREFIX_WEIGHT = 0.5;
  const TAG = /<[^>]*>/g;
  const ENTITY = /&(?:amp|quot|#39|lt|gt);/g;
  const CHARACTER = { "&amp;": "&", "&quot;": '"', "&#39;": "'", "&lt;": "<", "&gt;": ">" };

  function tokens(query, splitter) {
    // The query is plain text, as typed or pasted.
    return query.toLowerCase().split(splitter).filter(Boolean);
  }

  function plainText(html) {
    // Document titles and texts are HTML (the theme shows them as such): search their text.
    return html.replace(TAG, " ").replace(ENTITY, (entity) => CHARACTER[entity]).toLowerCase();
  }

  function buildIndex(docs, separator) {
    return {
      docs,
      splitter: new RegExp(separator),
      boundary: new RegExp(separator, "y"),
      titles: joined(docs.map((doc) => doc.title || "")),
      texts: joined(docs.map(searchedText)),
      remembered: new Map(),
      parents: parentsOf(docs),
    };
  }

  function searchedText(doc) {
    // An entry document's `words` are found like its text but never shown (generator/search.py).
    return doc.words ? `${doc.text || ""} ${doc.words}` : doc.text || "";
  }

  function joined(strings) {
    // One string, documents separated by a newline (a separator), and where each one starts.
    const starts = [];
    let length = 0;
    const cleaned = strings.map((text) => {
      const clean = plainText(text);
      starts.push(length);
      length += clean.length + 1;
      return clean;
    });
    return { text: cleaned.join("\n"), starts };
  }

  function holders(index, field, word, whole) {
    // Documents (ascending) where `word` starts a word, and ends one too if `whole`.
    const { text, starts } = field;
    const found = [];
    let doc = 0;
    let at = text.indexOf(word);
    while (at !== -1) {
      const end = at + word.length;
      if ((at === 0 || separatorAt(index, text, at - 1)) && (!whole || end === text.length || separatorAt(index, text, end))) {
        while (doc + 1 < starts.length && starts[doc + 1] <= at) doc++;
        found.push(doc);
        // One hit per document is enough: go on from the next one.
        if (doc + 1 === starts.length) break;
        at = text.indexOf(word, starts[doc + 1]);
      } else {
        at = text.indexOf(word, at + 1);
      }
    }
    return found;
  }

  function separatorAt(index, text, position) {
    index.boundary.lastIndex = position;
    return index.boundary.test(text);
  }

  function hits(index, word, whole) {
    // Weight of each document holding the word: more in a title, less as a mere prefix.
    const key = (whole ? "=" : "^") + word;
    let weights = index.remembered.get(key);
    if (weights === undefined) {
      weights = new Map();
      const closeness = whole ? 1 : PREFIX_WEIGHT;
      for (const doc of holders(index, index.texts, word, whole)) weights.set(doc, closeness);
      for (const doc of holders(index, index.titles, word, whole)) weights.set(doc, TITLE_WEIGHT * closeness);
      if (index.remembered.size >= MAX_REMEMBERED_WORDS) index.remembered.clear();
      index.remembered.set(key, weights);
    }
    return weights;
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

  function search(index, query) {
    const words = [...new Set(tokens(query, index.splitter))].slice(0, MAX_QUERY_TERMS);
    if (!words.length) return { items: [] };
    // The last word, while still being typed, also matches the words it starts.
    const typed = /\s$/u.test(query) ? null : words[words.length - 1];
    const scores = new Map();
    const found = new Map(); // doc → {words: query words it holds, prefix: the typed word, if held}
    const total = index.docs.length;
    for (const word of words) {
      const weights = new Map(hits(index, word, true));
      if (word === typed) for (const [doc, weight] of hits(index, word, false)) weights.set(doc, Math.max(weight, weights.get(doc) || 0));
      const rarity = Math.log(1 + total / Math.max(weights.size, 1));
      for (const [doc, weight] of weights) {
        scores.set(doc, (scores.get(doc) || 0) + rarity * weight);
        if (!found.has(doc)) found.set(doc, { words: new Set(), prefix: null });
        found.get(doc).words.add(word);
        if (word === typed) found.get(doc).prefix = word;
      }
    }
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
      const marked = groups.size <= MAX_HIGHLIGHTED;
      groups.get(parent).push(resultItem(index, doc, scores.get(doc), found.get(doc), words, marked));
    }
    for (const [parent, items] of groups) {
      if (!items.some((item) => item.location === index.docs[parent].location))
        items.unshift(resultItem(index, parent, 0, { words: new Set(), prefix: null }, words, false));
    }
    return [...groups.values()];
  }

  function resultItem(index, doc, score, held, words, marked) {
    const source = index.docs[doc];
    const terms = {};
    for (const word of words) terms[word] = held.words.has(word);
    const marks = (word) => held.words.has(word) || (held.prefix !== null && word.startsWith(held.prefix));
    return {
      location: source.location,
      title: marked ? highlight(source.title || "", marks, index.splitter) : source.title || "",
      text: marked ? highlight(source.text || "", marks, index.splitter) : source.text || "",
      score,
      terms,
    };
  }

  function highlight(html, marks, splitter) {
    // Wraps matched words in <mark>, in text only: never inside a tag or an entity.
    const words = new RegExp("(" + splitter.source + ")", "u");
    return html
      .split(/(<[^>]*>|&[#\w]+;)/u)
      .map((part, at) =>
        at % 2
          ? part
          : part
              .split(words)
              .map((word, place) => (place % 2 === 0 && word && marks(word.toLowerCase()) ? `<mark>${word}</mark>` : word))
              .join(""),
      )
      .join("");
  }

  function attachToWorker(scope) {
    // The entries start loading now, while the theme fetches its own index.
    const entries = loadEntries();
    let index = null;
    let ready = null;
    scope.addEventListener("message", async (event) => {
      const message = event.data;
      if (message.type === MESSAGE.SETUP) {
        const { config, docs } = message.data;
        ready = entries.then((more) => (index = buildIndex([...docs, ...more], config.separator)));
        await ready;
        scope.postMessage({ type: MESSAGE.READY });
      } else if (message.type === MESSAGE.QUERY) {
        if (ready) await ready;
        const data = index ? search(index, String(message.data)) : { items: [] };
        scope.postMessage({ type: MESSAGE.RESULT, data });
      }
    });
  }

  async function loadEntries() {
    try {
      const response = await fetch(new URL("../../search/entries.json", self.location.href));
      if (response.ok) return (await response.json()).docs;
    } catch (error) {
      console.warn("Trainwreck search: entries could not be loaded", error);
    }
    return [];
  }

  if (typeof WorkerGlobalScope !== "undefined" && self instanceof WorkerGlobalScope) attachToWorker(self);
  return { buildIndex, search, highlight, tokens, MESSAGE };
});
