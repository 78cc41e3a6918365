/*
 * Trainwreck diagnose engine for the browser (and Node, for the parity tests).
 *
 * A line-for-line port of generator/diagnose.py: same steps, same limits, same ordering, so
 * both engines print byte-identical canonical JSON for every log (tests/diagnose/cases).
 * Patterns come from the generated api/fingerprints.json; nothing here knows any entry.
 * Lengths and slices that reach the output count code points, as Python does.
 */
(function (root, factory) {
  if (typeof module === "object" && module.exports) module.exports = factory();
  else root.TrainwreckEngine = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  const RESULT_VERSION = 1;
  const INDENT = [" ", "\t"]; // a line starting with one is a traceback's source line, not its exception
  const MAX_LINE = 16000000;
  const MAX_EVIDENCE_TEXT = 400;
  const MAX_EVIDENCE_PER_MATCH = 10;
  const MAX_GROUPS_PER_FINGERPRINT = 50;
  const MAX_UNMATCHED = 10;
  const MAX_UNMATCHED_TRACKED = 1000;
  const CHUNK_LINES = 20000;
  const NO_TIME = "~";

  const ANSI = /\x1b\[[0-9;?]*[ -\/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]/gu;
  const NOT_BLANK = /[^ \t\f\v]/u;
  const DIGITS = /[0-9]+/gu;
  const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/gu;
  const LINE_SEPARATORS = /[\u2028\u2029\x85]/gu;
  const SIZE = /^([0-9]+(?:\.[0-9]+)?) ?([A-Za-z]+)$/u; // a captured "5.25 GiB", for size_at_least
  // Characters for which Python's str.isprintable() is false, among those visible() changes.
  const NEEDS_CLEANING = /[\x00-\x1f\x7f\u2028\u2029\x85]/u;

  function decodeLog(bytes) {
    const [encoding, skip] = sniff(bytes);
    return new TextDecoder(encoding, { ignoreBOM: true }).decode(bytes.subarray(skip));
  }

  function sniff(head) {
    if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return ["utf-8", 3];
    if (head[0] === 0xff && head[1] === 0xfe) return ["utf-16le", 2];
    if (head[0] === 0xfe && head[1] === 0xff) return ["utf-16be", 2];
    const sample = head.subarray(0, 4096);
    if (sample.length >= 4) {
      const half = Math.floor(sample.length / 2);
      let evenZeros = 0;
      let oddZeros = 0;
      for (let i = 0; i < sample.length; i++) {
        if (sample[i] === 0) {
          if (i % 2 === 0) evenZeros++;
          else oddZeros++;
        }
      }
      if (oddZeros > half * 0.4 && evenZeros < half * 0.1) return ["utf-16le", 0];
      if (evenZeros > half * 0.4 && oddZeros < half * 0.1) return ["utf-16be", 0];
    }
    return ["utf-8", 0];
  }

  function codePointSlice(text, start, end) {
    // Python's text[start:end], counting code points rather than UTF-16 units.
    let index = 0;
    let from = -1;
    let to = text.length;
    let unit = 0;
    for (const char of text) {
      if (index === start) from = unit;
      if (index === end) {
        to = unit;
        break;
      }
      unit += char.length;
      index++;
    }
    if (from === -1) from = index === start ? unit : text.length;
    return text.slice(from, to);
  }

  function codePointLength(text) {
    let count = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
        const next = text.charCodeAt(i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) i++;
      }
      count++;
    }
    return count;
  }

  function codePointIndex(text, unitIndex) {
    return codePointLength(text.slice(0, unitIndex));
  }

  function visible(raw) {
    if (raw.length > MAX_LINE) raw = codePointSlice(raw, 0, MAX_LINE);
    if (!NEEDS_CLEANING.test(raw)) return raw;
    if (raw.endsWith("\r")) raw = raw.slice(0, -1);
    if (raw.includes("\r")) {
      const segments = raw.split("\r").filter((segment) => NOT_BLANK.test(segment));
      raw = segments.length ? segments[segments.length - 1] : "";
    }
    if (raw.includes("\x1b")) raw = raw.replace(ANSI, "");
    raw = raw.replace(CONTROL, "");
    return raw.replace(LINE_SEPARATORS, " ");
  }

  function timeKey(found, groups) {
    const parts = groups.map((g) => (g ? found[g] : undefined));
    const [year, month, day, hour, minute, second, fraction] = parts;
    const frac = ((fraction || "") + "000000").slice(0, 6);
    return `${year || "0000"}-${month || "00"}-${day || "00"}T${hour}:${minute}:${second}.${frac}`;
  }

  class LineCleaner {
    constructor(prefixes) {
      this.rounds = prefixes.max_rounds;
      // For each possible first character, the prefixes that can match a line starting with it.
      this.byStart = new Map();
      for (const p of prefixes.prefixes) {
        const compiled = [new RegExp(p.regex, "u"), p.rank, p.time, p.error_starts || ""];
        for (const char of p.starts) {
          if (!this.byStart.has(char)) this.byStart.set(char, []);
          this.byStart.get(char).push(compiled);
        }
      }
      this.lastTime = new Map();
    }

    clean(number, raw) {
      let text = visible(raw);
      let rank = null;
      let time = null;
      let error = false;
      for (let round = 0; round < this.rounds; round++) {
        let stripped = false;
        for (const [regex, rankGroup, timeGroups, errorStarts] of this.byStart.get(text.slice(0, 1)) || []) {
          const found = regex.exec(text);
          if (found && found[0].length > 0) {
            if (rankGroup !== null && rank === null) rank = parseInt(found[rankGroup], 10);
            if (timeGroups !== null && time === null) time = timeKey(found, timeGroups);
            // A severity the prefix carries (glog's E0303 ...) is lost with it: keep it.
            error = error || errorStarts.includes(text.charAt(0));
            text = text.slice(found[0].length);
            stripped = true;
            break;
          }
        }
        if (!stripped) break;
      }
      if (time === null) {
        time = this.lastTime.has(rank) ? this.lastTime.get(rank) : NO_TIME;
      } else {
        this.lastTime.set(rank, time);
      }
      return { number, text, rank, time, error };
    }
  }

  function earlier(a, b) {
    // Python's (time, line) < (time, line) with string and integer parts.
    if (a.time !== b.time) return a.time < b.time;
    return a.line < b.line;
  }

  class Matcher {
    constructor(fingerprintSet) {
      this.set = fingerprintSet;
      this.cleaner = new LineCleaner(fingerprintSet.log_prefixes);
      this.lines = 0;
      this.groups = new Map();
      this.excluded = new Set();
      // Error-looking lines → [first line, count, fingerprints hit]. A line that hit none is unmatched;
      // one that did waits apart (its own cap) until the end shows whether its entry is shown.
      this.unmatched = new Map();
      this.pending = new Map();
      this.byAnchor = new Map();
      this.compiled = new Map();
      this.sizeUnits = fingerprintSet.size_units;
      this.entryExcludes = new Map();
      // A fingerprint with `requires_any` counts only once one of those literals is seen on any line.
      this.requirements = new Map();
      this.seenRequired = new Set();
      for (const entry of fingerprintSet.entries) {
        for (const fp of entry.fingerprints) {
          if (!this.byAnchor.has(fp.anchor)) this.byAnchor.set(fp.anchor, []);
          this.byAnchor.get(fp.anchor).push([entry, fp]);
          if (fp.regex !== null) this.compiled.set(fp.regex, new RegExp(fp.regex, "u"));
          if (fp.requires_any.length) this.requirements.set(`${entry.id}\u0000${fp.index}`, fp.requires_any);
        }
        for (const literal of entry.exclude) {
          if (!this.entryExcludes.has(literal)) this.entryExcludes.set(literal, []);
          this.entryExcludes.get(literal).push(entry.id);
        }
      }
      this.required = Array.from(new Set(Array.from(this.requirements.values()).flat()));
      this.hints = fingerprintSet.error_hints.contains.slice();
      // A literal ending in a newline ends its line: each joined chunk ends with one too.
      this.lineEndHints = fingerprintSet.error_hints.ends_line.map((literal) => `${literal}\n`);
    }

    feedText(rawLines) {
      let chunk = [];
      for (const raw of rawLines) {
        this.lines += 1;
        chunk.push(this.cleaner.clean(this.lines, raw));
        if (chunk.length >= CHUNK_LINES) {
          this.feed(chunk);
          chunk = [];
        }
      }
      if (chunk.length) this.feed(chunk);
    }

    feed(chunk) {
      const starts = [];
      let position = 0;
      for (const line of chunk) {
        starts.push(position);
        position += line.text.length + 1;
      }
      const joined = [...chunk.map((line) => line.text), ""].join("\n"); // ends with a newline
      const trigrams = trigramTable(joined);
      for (const [literal, ids] of this.entryExcludes) {
        if (mayContain(trigrams, literal) && joined.includes(literal)) for (const id of ids) this.excluded.add(id);
      }
      for (const literal of this.required) {
        if (mayContain(trigrams, literal) && joined.includes(literal)) this.seenRequired.add(literal);
      }
      const evidence = new Map();
      for (const [anchor, users] of this.byAnchor) {
        if (!mayContain(trigrams, anchor)) continue;
        for (const index of linesContaining(joined, starts, anchor)) {
          const line = chunk[index];
          for (const [entry, fp] of users) {
            if (this.hit(fp, line.text)) {
              this.record(entry.id, fp.index, line);
              if (!evidence.has(index)) evidence.set(index, []);
              evidence.get(index).push([entry.id, fp.index]);
            }
          }
        }
      }
      // Each error-looking line once, however many hints it holds.
      const errorLines = new Set();
      chunk.forEach((line, index) => {
        if (line.error) errorLines.add(index);
      });
      for (const hint of this.hints) {
        if (!mayContain(trigrams, hint)) continue;
        for (const index of linesContaining(joined, starts, hint)) errorLines.add(index);
      }
      for (const hint of this.lineEndHints) {
        if (!mayContain(trigrams, hint)) continue;
        for (const index of linesContaining(joined, starts, hint)) {
          if (!INDENT.includes(chunk[index].text.charAt(0))) errorLines.add(index);
        }
      }
      for (const index of Array.from(errorLines).sort((a, b) => a - b)) {
        this.recordErrorLine(chunk[index], evidence.get(index));
      }
    }

    hit(fp, text) {
      if (fp.exclude.some((literal) => text.includes(literal))) return false;
      if (fp.regex === null) return true;
      const found = this.compiled.get(fp.regex).exec(text);
      if (found === null) return false;
      return fp.size_at_least === null || this.atLeast(found, fp.size_at_least);
    }

    atLeast(found, groups) {
      const [larger, smaller] = groups.map((group) => this.size(found[group]));
      return larger !== null && smaller !== null && larger >= smaller;
    }

    // Bytes in a captured size such as "5.25 GiB"; null when it is not one in a known unit.
    size(text) {
      const parts = text === undefined ? null : SIZE.exec(text);
      if (parts === null || !Object.hasOwn(this.sizeUnits, parts[2])) return null;
      return Number(parts[1]) * this.sizeUnits[parts[2]];
    }

    record(entryId, index, line) {
      const key = `${entryId}\u0000${index}`;
      if (!this.groups.has(key)) this.groups.set(key, new Map());
      const groups = this.groups.get(key);
      // Lines that differ only in numbers (rank ids, sequence numbers, sizes) are one group.
      const groupKey = line.text.replace(DIGITS, "#");
      let group = groups.get(groupKey);
      if (group === undefined) {
        if (groups.size >= MAX_GROUPS_PER_FINGERPRINT) return;
        group = {
          line: line.number,
          last_line: line.number,
          text: line.text,
          count: 0,
          ranks: new Set(),
          first: { time: line.time, line: line.number, rank: line.rank },
        };
        groups.set(groupKey, group);
      }
      group.count += 1;
      group.last_line = line.number;
      if (line.rank !== null) group.ranks.add(line.rank);
      if (earlier({ time: line.time, line: line.number }, group.first)) {
        group.first = { time: line.time, line: line.number, rank: line.rank };
      }
    }

    // Known only once the whole log is fed.
    requirementMet(key) {
      const required = this.requirements.get(key);
      return required === undefined || required.some((literal) => this.seenRequired.has(literal));
    }

    // A line that hit fingerprints is decided at the end: it matched no entry when no entry it is
    // evidence for is shown (a context line alone, a `match: all` entry with a part missing, a
    // fingerprint whose required literal never came).
    recordErrorLine(line, hits) {
      const table = hits === undefined ? this.unmatched : this.pending;
      const seen = table.get(line.text);
      if (seen !== undefined) seen[1] += 1;
      else if (table.size < MAX_UNMATCHED_TRACKED) table.set(line.text, [line.number, 1, hits]);
    }

    result() {
      let matched = this.set.entries
        .filter((entry) => !this.excluded.has(entry.id))
        .map((entry) => this.match(entry))
        .filter((match) => match !== null);
      // Only an entry whose own cause line is in the log explains others.
      const causes = matched.filter((match) => !match._symptomOnly);
      const explained = new Map();
      for (const match of causes) for (const target of match.explains) explained.set(target, []);
      for (const match of causes) for (const target of match.explains) explained.get(target).push(match.id);
      for (const match of matched) {
        match.explained_by = (explained.get(match.id) || []).filter((by) => by !== match.id).sort(compareStrings);
        match.role = match.explained_by.length || match._symptomOnly ? "symptom" : "root";
        delete match._symptomOnly;
      }
      matched = withoutAccountedCandidates(matched);
      matched.sort(compareMatches);
      const firstRank = matched.length ? matched[0]._first.rank : null;
      for (const match of matched) {
        delete match._first;
        delete match._lines;
        delete match.explains;
      }
      return {
        version: RESULT_VERSION,
        fingerprints: this.set.hash,
        lines: this.lines,
        confident: matched.length > 0 && matched[0].role === "root",
        matches: matched,
        first_failing_rank: firstRank,
        unmatched_errors: this.unmatchedErrors(new Set(matched.map((match) => match.id))),
      };
    }

    match(entry) {
      const hits = new Map();
      for (const fp of entry.fingerprints) {
        const key = `${entry.id}\u0000${fp.index}`;
        const groups = this.requirementMet(key) ? this.groups.get(key) : undefined;
        hits.set(fp.index, groups ? Array.from(groups.values()) : []);
      }
      let roots = entry.fingerprints.filter((fp) => fp.role === "root" && hits.get(fp.index).length);
      // Only a cascade line, its cause cut off above it (a pasted tail): a candidate, not a diagnosis.
      const symptomOnly = !roots.length;
      if (symptomOnly) roots = entry.fingerprints.filter((fp) => fp.role === "symptom" && hits.get(fp.index).length);
      if (!roots.length) return null;
      if (entry.match === "all") {
        const needed = entry.fingerprints.filter((fp) => fp.role !== "context");
        if (!needed.every((fp) => hits.get(fp.index).length)) return null;
      }
      const rootGroups = roots.flatMap((fp) => hits.get(fp.index));
      let first = rootGroups[0].first;
      for (const group of rootGroups) if (earlier(group.first, first)) first = group.first;
      const evidence = entry.fingerprints.flatMap((fp) => hits.get(fp.index).map((group) => evidenceOf(fp, group)));
      evidence.sort((a, b) => a.line - b.line || a.fingerprint - b.fingerprint);
      let fingerprintsHit = 0;
      for (const groups of hits.values()) if (groups.length) fingerprintsHit++;
      return {
        id: entry.id,
        title: entry.title,
        url: entry.url,
        fix: entry.fix,
        explains: entry.explains,
        score: {
          priority: entry.priority,
          specificity: Math.max(...roots.map((fp) => fp.specificity)),
          first_line: Math.min(...rootGroups.map((group) => group.line)),
          root_hits: rootGroups.reduce((sum, group) => sum + group.count, 0),
          fingerprints_hit: fingerprintsHit,
          fingerprints_total: entry.fingerprints.length,
        },
        evidence: evidence.slice(0, MAX_EVIDENCE_PER_MATCH),
        more_evidence: Math.max(0, evidence.length - MAX_EVIDENCE_PER_MATCH),
        _first: first,
        _symptomOnly: symptomOnly,
        _lines: new Set(rootGroups.map((group) => group.line)),
      };
    }

    unmatchedErrors(shown) {
      const rows = Array.from(this.unmatched);
      for (const [text, row] of this.pending) {
        const explained = row[2].some(([id, index]) => shown.has(id) && this.requirementMet(`${id}\u0000${index}`));
        if (!explained) rows.push([text, row]);
      }
      const items = [];
      for (const [text, [line, count]] of rows) items.push({ line, text: shorten(text, ""), count });
      items.sort((a, b) => a.line - b.line);
      return items.slice(0, MAX_UNMATCHED);
    }
  }

  function compareStrings(a, b) {
    return a < b ? -1 : a > b ? 1 : 0;
  }

  // As _without_accounted_candidates in generator/diagnose.py: a candidate (a symptom whose
  // cause line is missing) is dropped when each of its lines is explained by a cause in the log.
  function withoutAccountedCandidates(matched) {
    const accounted = new Set();
    for (const match of matched) if (match.explained_by.length) for (const line of match._lines) accounted.add(line);
    return matched.filter(
      (match) => match.explained_by.length || match.role === "root" || ![...match._lines].every((line) => accounted.has(line)),
    );
  }

  function compareMatches(a, b) {
    const roleA = a.role === "root" ? 0 : 1;
    const roleB = b.role === "root" ? 0 : 1;
    return (
      roleA - roleB ||
      b.score.priority - a.score.priority ||
      b.score.specificity - a.score.specificity ||
      a.score.first_line - b.score.first_line ||
      compareStrings(a.id, b.id)
    );
  }

  function evidenceOf(fp, group) {
    return {
      fingerprint: fp.index,
      role: fp.role,
      line: group.line,
      last_line: group.last_line,
      text: shorten(group.text, fp.anchor),
      count: group.count,
      ranks: Array.from(group.ranks).sort((a, b) => a - b),
    };
  }

  function shorten(text, anchor) {
    if (text.length <= MAX_EVIDENCE_TEXT) return text;
    const length = codePointLength(text);
    if (length <= MAX_EVIDENCE_TEXT) return text;
    const unit = anchor ? text.indexOf(anchor) : 0;
    const position = unit <= 0 ? unit : codePointIndex(text, unit);
    const start = Math.max(0, position - 100);
    const end = Math.min(length, start + MAX_EVIDENCE_TEXT);
    return (start > 0 ? "…" : "") + codePointSlice(text, start, end) + (end < length ? "…" : "");
  }

  // A bit per hashed trigram of the chunk. An anchor with a trigram the chunk lacks cannot occur
  // in it, so its (much slower) indexOf scan is skipped. Collisions only cost a scan: results are
  // exactly those of scanning every anchor; the Python engine finds them all in one pass instead.
  const TRIGRAM_BITS = 1 << 20;

  function trigramHash(a, b, c) {
    return ((a << 12) ^ (b << 6) ^ c) & (TRIGRAM_BITS - 1);
  }

  function trigramTable(text) {
    const table = new Uint8Array(TRIGRAM_BITS >>> 3);
    let a = text.charCodeAt(0);
    let b = text.charCodeAt(1);
    for (let i = 2; i < text.length; i++) {
      const c = text.charCodeAt(i);
      const h = trigramHash(a, b, c);
      table[h >>> 3] |= 1 << (h & 7);
      a = b;
      b = c;
    }
    return table;
  }

  function mayContain(table, literal) {
    for (let i = 2; i < literal.length; i++) {
      const h = trigramHash(literal.charCodeAt(i - 2), literal.charCodeAt(i - 1), literal.charCodeAt(i));
      if ((table[h >>> 3] & (1 << (h & 7))) === 0) return false;
    }
    return true;
  }

  function* linesContaining(joined, starts, literal) {
    let position = joined.indexOf(literal);
    while (position !== -1) {
      const index = bisectRight(starts, position) - 1;
      yield index;
      const following = index + 1;
      if (following >= starts.length) return;
      position = joined.indexOf(literal, starts[following]);
    }
  }

  function bisectRight(values, target) {
    let low = 0;
    let high = values.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (target < values[middle]) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  function diagnoseText(text, fingerprintSet) {
    const matcher = new Matcher(fingerprintSet);
    const lines = text.split("\n");
    if (lines[lines.length - 1] === "") lines.pop(); // a final newline ends the last line, as in Python's split_lines
    matcher.feedText(lines);
    return matcher.result();
  }

  function diagnoseBytes(bytes, fingerprintSet) {
    return diagnoseText(decodeLog(bytes), fingerprintSet);
  }

  function canonicalJson(value) {
    // Python's json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")).
    if (value === null || typeof value !== "object") return JSON.stringify(value);
    if (Array.isArray(value)) return "[" + value.map(canonicalJson).join(",") + "]";
    const keys = Object.keys(value).sort(compareStrings);
    return "{" + keys.map((key) => JSON.stringify(key) + ":" + canonicalJson(value[key])).join(",") + "}";
  }

  return { decodeLog, diagnoseText, diagnoseBytes, canonicalJson, RESULT_VERSION };
});
