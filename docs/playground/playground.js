// The playground page's glue: refimpl under Pyodide, both vendored into the site next to
// this file by tools/playground_hook.py (pyodide/, maskref.zip) — nothing is fetched from
// elsewhere. Python does the work: refimpl/showing/playground.py's `run` answers with the
// `maskref explain` page (shown in the frame, its own script unchanged) and the last mask;
// its `why` answers the frame's "Why is this token refused?" for any token (the frame's
// script calls window.maskrefWhy). Plain JavaScript, no framework.
//
// Hooks for tests: #maskref-playground[data-state] is "loading", "ready", "busy" or
// "failed"; #pg-allowed holds the last mask's count once a run is shown; #pg-error the
// grammar's error; #pg-view[data-shown] the number of the run whose explanation the frame
// has loaded; window.maskrefPlayground.timings the figures docs/playground.md quotes.
(function () {
  "use strict";
  var base = new URL(".", document.currentScript.src).href;
  var root = document.getElementById("maskref-playground");
  if (root === null) { return; }
  var $ = function (id) { return document.getElementById(id); };
  var kind = $("pg-kind"), grammar = $("pg-grammar"), vocab = $("pg-vocab"), text = $("pg-text");
  var tokens = $("pg-tokens"), go = $("pg-run"), statusLine = $("pg-status"), error = $("pg-error");
  var summary = $("pg-summary"), next = $("pg-next"), frame = $("pg-view");
  var py = null, pg = null, explanation = null, examples = {}, pending = null;
  var state = window.maskrefPlayground = {timings: {runs: []}};

  function setState(name, message) {
    root.setAttribute("data-state", name);
    statusLine.textContent = message;
  }

  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) {
      return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c];
    });
  }

  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = src;
      s.onload = resolve;
      s.onerror = function () { reject(new Error("could not load " + src)); };
      document.head.appendChild(s);
    });
  }

  function toJs(proxy) {
    var value = proxy.toJs({dict_converter: Object.fromEntries});
    proxy.destroy();
    return value;
  }

  async function start() {
    setState("loading", "Loading Python (Pyodide) and refimpl…");
    var t0 = performance.now();
    await loadScript(base + "pyodide/pyodide.js");
    py = await window.loadPyodide({indexURL: base + "pyodide/"});
    var t1 = performance.now();
    var zip = await (await fetch(base + "maskref.zip")).arrayBuffer();
    py.unpackArchive(zip, "zip", {extractDir: "/home/pyodide/maskref"});
    py.runPython("import sys; sys.path.insert(0, '/home/pyodide/maskref')");
    pg = py.pyimport("refimpl.showing.playground");
    var t2 = performance.now();
    state.timings.pyodide = t1 - t0;
    state.timings.refimpl = t2 - t1;
    state.timings.ready = t2;  // since the navigation started
    toJs(pg.examples()).forEach(function (e) {
      examples[e.kind] = e;
      var o = document.createElement("option");
      o.value = e.kind;
      o.textContent = e.name;
      kind.appendChild(o);
    });
    pick(kind.value);
    [kind, grammar, vocab, text, tokens, go].forEach(function (e) { e.disabled = false; });
    setState("ready", "Ready: Python " + py.version + " (Pyodide), refimpl loaded in " +
             ((t2 - t0) / 1000).toFixed(1) + " s.");
    explain();
  }

  function pick(k) {
    grammar.value = examples[k].grammar;
    text.value = examples[k].text;
    tokens.value = "";
  }

  // runs the explanation now (after a repaint, so that the "working" line shows first)
  function explain() {
    if (pg === null) { return; }
    clearTimeout(pending);
    setState("busy", vocab.value === "gpt2" && !state.timings.gpt2Loaded
      ? "Loading the GPT-2 vocabulary and explaining… (the first time takes a few seconds)" : "Explaining…");
    pending = setTimeout(function () {
      try {
        show(compute());
      } catch (e) {
        setState("failed", "The playground failed: " + e.message);
        throw e;
      }
    }, 30);
  }

  function compute() {
    var ids = tokens.value.trim() === "" ? [] : tokens.value.trim().split(/[\s,]+/).map(Number);
    if (ids.some(function (t) { return !Number.isInteger(t) || t < 0; })) {
      return {ok: false, error: {message: "token ids: whole numbers separated by spaces", line: null, caret: ""}};
    }
    var t0 = performance.now();
    pg.vocabulary(vocab.value);  // loaded once (its trie with it): timed apart
    var t1 = performance.now();
    var args = py.toPy(ids);
    var result = pg.run.callKwargs(kind.value, grammar.value, vocab.value, {text: text.value, tokens: args});
    args.destroy();
    var t2 = performance.now();
    if (explanation !== null) { explanation.destroy(); }
    explanation = result.get(0) || null;  // None (undefined here) where the grammar has an error
    var out = toJs(result.get(1));
    result.destroy();
    state.timings.runs.push({vocab: vocab.value, kind: kind.value, load: t1 - t0, run: t2 - t1,
                             steps: out.ok ? out.steps.length : 0});
    if (vocab.value === "gpt2") { state.timings.gpt2Loaded = true; }
    return out;
  }

  function show(out) {
    if (!out.ok) {
      var e = out.error;
      error.hidden = false;
      error.innerHTML = "<b>" + esc(e.type || "Error") + "</b>: " + esc(e.message) +
        (e.line ? ' <span class="pg-where">at line ' + e.line + ", column " + e.column + "</span>" : "") +
        (e.caret ? '<pre class="pg-caret">' + esc(e.caret) + "</pre>" : "");
      summary.innerHTML = "";
      next.innerHTML = "";
      frame.srcdoc = "";
      frame.hidden = true;
      setState("ready", "The grammar has an error: fix it and explain again.");
      return;
    }
    error.hidden = true;
    error.innerHTML = "";
    var steps = out.steps.length - 1;
    summary.innerHTML = 'After <code class="pg-text">' + esc(out.text) + "</code> (" + steps + " token" +
      (steps === 1 ? "" : "s") + '): <b id="pg-allowed">' + out.allowed + "</b> of " + out.vocab_size +
      " tokens allowed" + (out.eos ? ", EOS allowed" : "") + "." +
      (out.stopped ? ' <span class="pg-stopped">Stopped: ' + esc(out.stopped) + ".</span>" : "");
    next.innerHTML = out.next.length === 0 ? "" :
      '<span class="pg-label">Allowed next (click one to add it)' +
      (out.next.length < out.allowed ? ", the first " + out.next.length : "") + ":</span> " +
      out.next.map(function (p) {
        return '<button type="button" class="pg-tok" data-token="' + p[0] + '" title="token ' + p[0] + '">' +
          esc(p[1]).replace(/ /g, "\u2423") + "</button>";
      }).join("");
    frame.hidden = false;
    frame.setAttribute("data-run", String(state.timings.runs.length));
    frame.srcdoc = out.page;
    widen();
    state.last = {allowed: out.allowed, text: out.text, tokens: out.steps.slice(1).map(function (s) { return s.token; })};
    setState("ready", "Explained " + steps + " step" + (steps === 1 ? "" : "s") + " on " + vocab.value + ".");
  }

  // the frame as wide as the window (the page's column is narrow for the explanation's two
  // columns): shifted left to the window's edge, less a margin
  function widen() {
    frame.style.marginLeft = "0";
    var left = frame.getBoundingClientRect().left;
    frame.style.width = Math.max(320, document.documentElement.clientWidth - 32) + "px";
    frame.style.marginLeft = (16 - left) + "px";
  }
  window.addEventListener("resize", widen);

  // the frame's "Why is this token refused?" asks the engine (refimpl/showing/page.py's script)
  frame.addEventListener("load", function () {
    frame.setAttribute("data-shown", frame.getAttribute("data-run"));  // the run whose page is shown
    var w = frame.contentWindow;
    if (w === null || explanation === null) { return; }
    var ex = explanation;
    w.maskrefWhy = function (step, token) {
      if (ex !== explanation) { return "<p>This explanation is gone: explain again.</p>"; }
      var r = pg.why(ex, step, token), html = r.get("html");
      r.destroy();
      return html;
    };
  });

  next.addEventListener("click", function (e) {
    var b = e.target.closest ? e.target.closest("button.pg-tok") : null;
    if (b === null || !state.last) { return; }
    tokens.value = state.last.tokens.concat([parseInt(b.getAttribute("data-token"), 10)]).join(" ");
    explain();
  });
  kind.addEventListener("change", function () { pick(kind.value); explain(); });
  vocab.addEventListener("change", function () { tokens.value = ""; explain(); });
  go.addEventListener("click", explain);
  text.addEventListener("input", function () { tokens.value = ""; });
  [grammar, text, tokens].forEach(function (e) {
    e.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey || e !== grammar)) { ev.preventDefault(); explain(); }
    });
  });
  if (location.protocol === "file:") {
    setState("failed", "The playground needs the site served over HTTP (python -m properdocs serve -f mkdocs.yml, or " +
             "python -m http.server -d site): a browser does not load WebAssembly from a file: address.");
    return;
  }
  start().catch(function (e) { setState("failed", "The playground could not start: " + e.message); throw e; });
})();
