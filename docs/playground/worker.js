// The playground's worker: Pyodide and refimpl, off the page's thread, so that the page
// answers its learner while Python works (and its Stop button can end the work: the page
// terminates this worker and starts a fresh one). Loaded by playground.js from the site,
// beside it, as are Pyodide (pyodide/) and refimpl (maskref.zip): nothing is fetched from
// elsewhere.
//
// Messages. To the page, once: {type: "ready", version, examples, pyodide, refimpl} (the
// last two: ms spent loading Pyodide, then unpacking and importing refimpl), or {type:
// "failed", message}. From the page, one request at a time, each answered with its id:
//   {id, op: "explain", kind, grammar, vocab, text, tokens} → {id, out, load, run}: `out`
//     refimpl/showing/playground.py's `run` answer (the page, the mask, or the grammar's
//     error); `load` ms loading the vocabulary (once), `run` ms explaining;
//   {id, op: "why", run, step, token} → {id, html}: why `token` is refused at `step` of the
//     explanation answered to request `run` (only the last one is kept);
//   {id, op: "requests"} → {id, urls}: every address this worker has fetched (its Resource
//     Timing entries: the browser test checks that none leaves the site);
//   an error of the glue or of Python itself → {id, failed: message}.
"use strict";
var base = new URL(".", self.location.href).href;
importScripts(base + "pyodide/pyodide.js");

var py = null, pg = null;
var explained = null;  // {run: the request's id, ex: its Explanation (a Python proxy)}

function toJs(proxy) {
  var value = proxy.toJs({dict_converter: Object.fromEntries});
  proxy.destroy();
  return value;
}

async function start() {
  var t0 = performance.now();
  py = await self.loadPyodide({indexURL: base + "pyodide/"});
  var t1 = performance.now();
  var zip = await (await fetch(base + "maskref.zip")).arrayBuffer();
  py.unpackArchive(zip, "zip", {extractDir: "/home/pyodide/maskref"});
  py.runPython("import sys; sys.path.insert(0, '/home/pyodide/maskref')");
  pg = py.pyimport("refimpl.showing.playground");
  var t2 = performance.now();
  self.postMessage({type: "ready", version: py.version, examples: toJs(pg.examples()),
                    pyodide: t1 - t0, refimpl: t2 - t1});
}

function explain(m) {
  var t0 = performance.now();
  pg.vocabulary(m.vocab);  // loaded once (its trie with it): timed apart
  var t1 = performance.now();
  var ids = py.toPy(m.tokens);
  var result = pg.run.callKwargs(m.kind, m.grammar, m.vocab, {text: m.text, tokens: ids});
  ids.destroy();
  var t2 = performance.now();
  if (explained !== null) { explained.ex.destroy(); }
  var ex = result.get(0);  // None (undefined here) where the grammar has an error
  explained = ex ? {run: m.id, ex: ex} : null;
  var out = toJs(result.get(1));
  result.destroy();
  return {id: m.id, out: out, load: t1 - t0, run: t2 - t1};
}

function why(m) {
  if (explained === null || explained.run !== m.run) {
    return {id: m.id, html: "<p>This explanation is gone: explain again.</p>"};
  }
  var r = pg.why(explained.ex, m.step, m.token), html = r.get("html");
  r.destroy();
  return {id: m.id, html: html};
}

function requests(m) {
  return {id: m.id, urls: self.performance.getEntriesByType("resource").map(function (e) { return e.name; })};
}

self.onmessage = function (e) {
  var m = e.data;
  try {
    self.postMessage(m.op === "explain" ? explain(m) : m.op === "why" ? why(m) : requests(m));
  } catch (err) {
    self.postMessage({id: m.id, failed: err.message});
  }
};

start().catch(function (err) { self.postMessage({type: "failed", message: err.message}); });
