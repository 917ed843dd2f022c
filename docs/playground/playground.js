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
// The playground page's glue: refimpl under Pyodide in a Web Worker (worker.js, beside this
// file), both vendored into the site next to it by tools/playground_hook.py (pyodide/,
// maskref.zip) — nothing is fetched from elsewhere. Python does the work, off the page's
// thread: refimpl/showing/playground.py's `run` answers with the `maskref explain` page
// (shown in the frame, its own script unchanged) and the last mask; its `why` answers the
// frame's "Why is this token refused?" for any token (the frame's script calls
// window.maskrefWhy, which shows "Asking the engine…" until the worker answers). Plain
// JavaScript, no framework.
//
// The page sends the worker one request at a time (a newer explanation replaces one not
// yet sent). A request still running after the time limit (state.limit seconds), or when
// the learner presses Stop, ends the worker: the page terminates it, starts a fresh one (the
// vocabulary is loaded again when next asked) and says so.
//
// Hooks for tests: #maskref-playground[data-state] is "loading", "ready", "busy" or
// "failed"; #pg-allowed holds the last mask's count once a run is shown; #pg-error the
// grammar's error; #pg-view[data-shown] the number of the run whose explanation the frame
// has loaded; window.maskrefPlayground.timings the figures docs/playground.md quotes, its
// .limit the time limit in seconds (the page's data-limit), its .stops the number of
// workers stopped, its .requests(done) calls done(the addresses the worker has fetched).
(function () {
  "use strict";
  var base = new URL(".", document.currentScript.src).href;
  var root = document.getElementById("maskref-playground");
  if (root === null) { return; }
  var $ = function (id) { return document.getElementById(id); };
  var kind = $("pg-kind"), grammar = $("pg-grammar"), vocab = $("pg-vocab"), text = $("pg-text");
  var tokens = $("pg-tokens"), go = $("pg-run"), stopButton = $("pg-stop"), statusLine = $("pg-status");
  var error = $("pg-error"), summary = $("pg-summary"), next = $("pg-next"), frame = $("pg-view");
  var worker = null, ready = false, current = null, waiting = [], sent = 0, asks = 0, explanation = null;
  var examples = {}, stopped = "";
  var state = window.maskrefPlayground = {timings: {runs: []}, limit: Number(root.getAttribute("data-limit")) || 30,
                                          stops: 0};

  state.requests = function (done) {
    send("requests", {}, function (m) { done(m.urls || []); });
  };

  function setState(name, message) {
    root.setAttribute("data-state", name);
    statusLine.textContent = message;
  }

  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) {
      return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c];
    });
  }

  // a fresh worker: Pyodide loaded and refimpl imported there, then the requests waiting sent
  function startWorker() {
    var t0 = performance.now(), w = worker = new Worker(base + "worker.js");
    ready = false;
    state.timings.gpt2Loaded = false;  // a fresh worker loads the vocabulary again
    w.onmessage = function (e) {
      if (w !== worker) { return; }
      var m = e.data;
      if (m.type === "ready") {
        started(m, t0);
      } else if (m.type === "failed") {
        setState("failed", "The playground could not start: " + m.message);
      } else if (current !== null && m.id === current.id) {
        answered(m);
      }
    };
    w.onerror = function (e) {
      if (w !== worker) { return; }
      setState("failed", "The playground's worker failed: " + (e.message || "(no message)"));
    };
  }

  function started(m, t0) {
    var first = kind.options.length === 0;
    ready = true;
    state.timings.pyodide = m.pyodide;
    state.timings.refimpl = m.refimpl;
    state.timings.ready = performance.now();  // since the navigation started (the first worker)
    var took = ((performance.now() - t0) / 1000).toFixed(1) + " s";
    var message = stopped ? stopped + "; the worker restarted in " + took + ": explain again."
      : "Ready: Python " + m.version + " (Pyodide), refimpl loaded in " + took + ".";
    stopped = "";
    if (first) {
      m.examples.forEach(function (e) {
        examples[e.kind] = e;
        var o = document.createElement("option");
        o.value = e.kind;
        o.textContent = e.name;
        kind.appendChild(o);
      });
      pick(kind.value);
      [kind, grammar, vocab, text, tokens, go].forEach(function (e) { e.disabled = false; });
    }
    setState("ready", message);
    if (first) {
      explain();
    } else {
      pump();
    }
  }

  // a request to the worker, sent when the ones before it are answered; done(answer) then,
  // or done({stopped: true}) if the worker is stopped first
  function send(op, data, done) {
    var r = {id: ++sent, op: op, data: data, done: done};
    if (op === "explain") {  // a newer explanation replaces one not yet sent
      waiting = waiting.filter(function (w) { return w.op !== "explain"; });
    }
    waiting.push(r);
    pump();
  }

  // the page is busy explaining `asked`
  function busy(asked) {
    setState("busy", (asked.vocab === "gpt2" && !state.timings.gpt2Loaded
      ? "Loading the GPT-2 vocabulary and explaining… (the first time takes a few seconds)" : "Explaining…") +
      " Stop ends it; it stops by itself after " + state.limit + " s.");
  }

  function pump() {
    if (!ready || current !== null || waiting.length === 0) { return; }
    var r = current = waiting.shift();
    if (r.op === "explain") { busy(r.data); }
    r.started = performance.now();
    r.timer = setTimeout(function () { stop("the time limit, " + state.limit + " s"); }, state.limit * 1000);
    worker.postMessage(Object.assign({id: r.id, op: r.op}, r.data));
    stopButton.disabled = false;
  }

  function answered(m) {
    var r = current;
    clearTimeout(r.timer);
    current = null;
    stopButton.disabled = true;
    r.done(m);
    pump();
  }

  // ends the worker's work: terminated, a fresh one started; the page says what happened
  function stop(why) {
    if (current === null) { return; }
    var seconds = Math.round((performance.now() - current.started) / 1000);
    var dropped = [current].concat(waiting);
    clearTimeout(current.timer);
    worker.terminate();
    state.stops += 1;
    current = null;
    waiting = [];
    explanation = null;  // it was the worker's
    stopButton.disabled = true;
    stopped = "Stopped after " + seconds + " s (" + why + ")";
    setState("loading", stopped + "; the worker is restarting (loading Python again)…");
    startWorker();
    dropped.forEach(function (r) { r.done({stopped: true}); });
  }

  function pick(k) {
    grammar.value = examples[k].grammar;
    text.value = examples[k].text;
    tokens.value = "";
  }

  // asks the worker for the explanation of what the page holds; shown when it answers
  function explain() {
    if (kind.options.length === 0) { return; }
    var ids = tokens.value.trim() === "" ? [] : tokens.value.trim().split(/[\s,]+/).map(Number);
    if (ids.some(function (t) { return !Number.isInteger(t) || t < 0; })) {
      show({ok: false, error: {message: "token ids: whole numbers separated by spaces", line: null, caret: ""}});
      return;
    }
    var asked = {kind: kind.value, grammar: grammar.value, vocab: vocab.value, text: text.value, tokens: ids};
    if (ready) { busy(asked); }
    send("explain", asked, function (m) {
      if (m.stopped) { return; }  // stop() said so
      if (waiting.some(function (w) { return w.op === "explain"; })) { return; }  // a newer one comes
      if (m.failed !== undefined) {
        setState("failed", "The playground failed: " + m.failed);
        return;
      }
      state.timings.runs.push({vocab: asked.vocab, kind: asked.kind, load: m.load, run: m.run,
                               steps: m.out.ok ? m.out.steps.length : 0});
      if (asked.vocab === "gpt2") { state.timings.gpt2Loaded = true; }
      explanation = m.out.ok ? {run: m.id} : null;
      show(m.out);
    });
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

  // the frame's "Why is this token refused?" asks the worker (refimpl/showing/page.py's
  // script calls maskrefWhy and shows what it returns: here "Asking…", replaced by the
  // worker's answer if the box still shows that question then)
  frame.addEventListener("load", function () {
    frame.setAttribute("data-shown", frame.getAttribute("data-run"));  // the run whose page is shown
    var w = frame.contentWindow;
    if (w === null || explanation === null) { return; }
    var ex = explanation;
    w.maskrefWhy = function (step, token) {
      if (ex !== explanation) { return "<p>This explanation is gone: explain again.</p>"; }
      var ask = ++asks;
      send("why", {run: ex.run, step: step, token: token}, function (m) {
        var doc = w.document, result = doc.getElementById("why-result");
        if (result === null || result.querySelector('[data-ask="' + ask + '"]') === null) { return; }
        result.innerHTML = m.stopped ? "<p>Stopped: the worker restarted, explain again.</p>"
          : m.failed !== undefined ? "<p>The engine failed: " + esc(m.failed) + "</p>" : m.html;
      });
      return '<p class="why-wait" data-ask="' + ask + '">Asking the engine…</p>';
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
  stopButton.addEventListener("click", function () { stop("Stop pressed"); });
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
  setState("loading", "Loading Python (Pyodide) and refimpl…");
  startWorker();
})();
