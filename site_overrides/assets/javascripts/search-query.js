// Error messages are full of characters that the search engine's query syntax (Lunr) reads as
// operators: "OutOfMemoryError: CUDA" becomes a search in a field named OutOfMemoryError, and
// "--nproc-per-node" excludes a term. Before the theme reads the search box, turn those
// characters into spaces, so a pasted error string is searched as the words it contains.
"use strict";
document.addEventListener(
  "input",
  (event) => {
    const box = event.target;
    if (!(box instanceof HTMLInputElement) || !box.classList.contains("md-search__input")) return;
    const cleaned = box.value.replace(/[:^~*]/g, " ").replace(/(^|\s)[+-]+(?=\S)/g, "$1");
    if (cleaned !== box.value) {
      const caret = box.selectionStart;
      box.value = cleaned;
      box.setSelectionRange(caret, caret);
    }
  },
  true,
);
