(function () {
  "use strict";
  var started = performance.now();
  var data = JSON.parse(document.getElementById("rag-data").textContent);
  var S = data.strings, C = data.checks, D = data.details;
  var N = C.metric.length;
  var STATUS = ["fail", "pass", "no threshold", "error"];
  var STATUS_CLASS = ["st-fail", "st-pass", "st-none", "st-error"];
  var SOURCE = ["live", "cached", "offline", "-", "batch", "computed"];
  var UNCERTAIN = 4;  // the outcome filter's value for checks a rerun could decide either way
  var PAGE = 100;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function str(i) { return i === null || i === undefined || i < 0 ? "" : S[i]; }
  function testId(i) { return C.file[i] < 0 ? S[C.name[i]] : S[C.file[i]] + "::" + S[C.name[i]]; }
  // the check's key: the test id, then the sample ([q17], or [#3] for an evaluate sample without an id)
  // and #N for the N-th check of one metric in one test and sample, so no two rows read the same
  function checkLabel(i) { return testId(i) + (C.tag[i] >= 0 ? S[C.tag[i]] : ""); }
  function num(v) {
    if (v === null || v === undefined) return "-";
    return String(Math.round(v * 1000) / 1000);
  }

  // -- the checks table ------------------------------------------------------------------------
  var lowerIds = null;
  var keyOf = {
    test: function (i) { return checkLabel(i); },
    metric: function (i) { return S[C.metric[i]]; },
    score: function (i) { return C.score[i] === null ? -Infinity : C.score[i]; },
    threshold: function (i) { return C.threshold[i] === null ? -Infinity : C.threshold[i]; },
    status: function (i) { return C.status[i]; },
    judge: function (i) { return S[C.judge[i]]; },
    source: function (i) { return C.source[i]; },
    tokens: function (i) { return C.tokens[i]; }
  };
  var state = { rows: [], page: 0, key: null, dir: 1, text: "", metric: -1, status: -1, selected: -1 };
  var tbody = document.querySelector("#checks tbody");
  var pager = document.getElementById("pager");
  var prev = document.getElementById("prev"), next = document.getElementById("next");

  function filterRows() {
    var rows = [], text = state.text;
    if (text && lowerIds === null) {
      lowerIds = new Array(N);
      for (var k = 0; k < N; k++) lowerIds[k] = checkLabel(k).toLowerCase();
    }
    for (var i = 0; i < N; i++) {
      if (state.metric >= 0 && C.metric[i] !== state.metric) continue;
      if (state.status === UNCERTAIN) { if (!C.uncertain || !C.uncertain[i]) continue; }
      else if (state.status >= 0 && C.status[i] !== state.status) continue;
      if (text && lowerIds[i].indexOf(text) < 0) continue;
      rows.push(i);
    }
    state.rows = rows;
    sortRows();
  }
  function sortRows() {
    if (!state.key) return;
    var key = keyOf[state.key], dir = state.dir, values = {};
    state.rows.forEach(function (i) { values[i] = key(i); });
    state.rows.sort(function (a, b) {
      var x = values[a], y = values[b];
      if (x < y) return -dir;
      if (x > y) return dir;
      return a - b;
    });
  }
  function cell(tr, text, cls) { var td = el("td", cls, text); tr.appendChild(td); return td; }
  function renderTable() {
    var rows = state.rows, start = state.page * PAGE, end = Math.min(rows.length, start + PAGE);
    var fragment = document.createDocumentFragment();
    for (var r = start; r < end; r++) {
      var i = rows[r], tr = el("tr");
      tr.dataset.check = String(i);
      tr.tabIndex = 0;
      if (i === state.selected) tr.className = "selected";
      cell(tr, checkLabel(i), "test");
      cell(tr, S[C.metric[i]]);
      cell(tr, num(C.score[i]) + (C.scale[i] >= 0 ? " / " + S[C.scale[i]] : ""), "num");
      cell(tr, num(C.threshold[i]), "num");
      var outcome = cell(tr, STATUS[C.status[i]], STATUS_CLASS[C.status[i]]);
      if (C.uncertain && C.uncertain[i]) outcome.appendChild(el("span", "badge uncertain", "uncertain"));
      cell(tr, S[C.judge[i]]);
      cell(tr, SOURCE[C.source[i]]);
      cell(tr, C.tokens[i].toLocaleString("en-US"), "num");
      fragment.appendChild(tr);
    }
    tbody.replaceChildren(fragment);
    if (rows.length === 0) {
      var empty = el("tr"), td = el("td", "muted", N === 0 ? "No judged checks in this run." : "No check matches the filter.");
      td.colSpan = 8;
      empty.appendChild(td);
      tbody.appendChild(empty);
    }
    pager.textContent = rows.length === 0 ? "0 checks" :
      "checks " + (start + 1) + "\u2013" + end + " of " + rows.length + (rows.length !== N ? " (filtered from " + N + ")" : "");
    prev.disabled = state.page === 0;
    next.disabled = end >= rows.length;
  }
  document.querySelectorAll("#checks th[data-key]").forEach(function (th) {
    th.querySelector("button").addEventListener("click", function () {
      var key = th.dataset.key;
      state.dir = state.key === key ? -state.dir : (key === "score" || key === "tokens" ? 1 : 1);
      state.key = key;
      document.querySelectorAll("#checks th[data-key]").forEach(function (other) { other.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", state.dir > 0 ? "ascending" : "descending");
      sortRows();
      state.page = 0;
      renderTable();
    });
  });
  var metricSelect = document.getElementById("metric-filter");
  data.metrics.forEach(function (m) { var o = el("option", "", S[m]); o.value = String(m); metricSelect.appendChild(o); });
  metricSelect.addEventListener("change", function () { state.metric = Number(metricSelect.value); filterRows(); state.page = 0; renderTable(); });
  var statusSelect = document.getElementById("status-filter");
  if (C.uncertain) { var o = el("option", "", "uncertain"); o.value = String(UNCERTAIN); statusSelect.appendChild(o); }
  statusSelect.addEventListener("change", function () { state.status = Number(statusSelect.value); filterRows(); state.page = 0; renderTable(); });
  var search = document.getElementById("search"), pending = null;
  search.addEventListener("input", function () {
    clearTimeout(pending);
    pending = setTimeout(function () { state.text = search.value.trim().toLowerCase(); filterRows(); state.page = 0; renderTable(); }, 120);
  });
  prev.addEventListener("click", function () { if (state.page > 0) { state.page--; renderTable(); } });
  next.addEventListener("click", function () { if ((state.page + 1) * PAGE < state.rows.length) { state.page++; renderTable(); } });
  tbody.addEventListener("click", function (event) {
    var tr = event.target.closest("tr[data-check]");
    if (tr) showDetail(Number(tr.dataset.check));
  });
  tbody.addEventListener("keydown", function (event) {
    var tr = event.target.closest("tr[data-check]");
    if (tr && (event.key === "Enter" || event.key === " ")) { event.preventDefault(); showDetail(Number(tr.dataset.check)); }
  });

  // -- the detail view -------------------------------------------------------------------------
  var detail = document.getElementById("detail");

  function kv(pairs) {
    var dl = el("dl", "kv");
    pairs.forEach(function (p) {
      if (p[1] === null || p[1] === undefined || p[1] === "") return;
      dl.appendChild(el("dt", "", p[0]));
      var dd = el("dd");
      if (p[1] instanceof Node) dd.appendChild(p[1]); else dd.textContent = String(p[1]);
      dl.appendChild(dd);
    });
    return dl;
  }
  function human(key) { return String(key).replace(/_/g, " "); }
  function isPlain(v) { return v === null || typeof v !== "object"; }
  function renderValue(v, depth) {
    if (v === null || v === undefined) return el("span", "muted", "-");
    if (typeof v === "boolean") return el("span", "", v ? "yes" : "no");
    if (typeof v === "number") return el("span", "", num(v));
    if (typeof v === "string") return el("span", "", v);
    if (depth > 3) return el("span", "", JSON.stringify(v));
    if (Array.isArray(v)) {
      if (v.length === 0) return el("span", "muted", "(none)");
      if (v.every(isPlain)) {
        var ul = el("ul");
        v.forEach(function (item) { var li = el("li"); li.appendChild(renderValue(item, depth + 1)); ul.appendChild(li); });
        return ul;
      }
      if (v.every(function (x) { return x && typeof x === "object" && !Array.isArray(x); })) {
        var cols = [];
        v.forEach(function (row) { Object.keys(row).forEach(function (k) { if (cols.indexOf(k) < 0 && cols.length < 8) cols.push(k); }); });
        var table = el("table"), head = el("tr");
        head.appendChild(el("th", "num", "#"));
        cols.forEach(function (c) { head.appendChild(el("th", "", human(c))); });
        table.appendChild(head);
        v.forEach(function (row, n) {
          var tr = el("tr");
          tr.appendChild(el("td", "num", n + 1));
          cols.forEach(function (c) { var td = el("td"); td.appendChild(renderValue(row[c], depth + 1)); tr.appendChild(td); });
          table.appendChild(tr);
        });
        return table;
      }
      return el("span", "", JSON.stringify(v));
    }
    var keys = Object.keys(v);
    if (keys.length === 0) return el("span", "muted", "(none)");
    return kv(keys.map(function (k) { return [human(k), renderValue(v[k], depth + 1)]; }));
  }

  function renderAnswer(text, sentences, marksBySentence) {
    var box = el("div", "text answer"), at = 0;
    sentences.forEach(function (s, n) {
      if (s[0] > at) box.appendChild(document.createTextNode(text.slice(at, s[0])));
      var span = el("span", "sent" + (s[2] ? " unsupported" : ""), text.slice(s[0], s[1]));
      span.dataset.sentence = String(n);
      if (s[2]) span.title = "the judge found this sentence unsupported";
      if (s[3] >= 0) {
        span.appendChild(el("sup", "", "C" + (s[3] + 1)));
        span.addEventListener("click", function () { activate(n); });
      }
      box.appendChild(span);
      at = s[1];
    });
    if (at < text.length) box.appendChild(document.createTextNode(text.slice(at)));
    return box;
  }
  function renderPassage(text, spans) {
    var box = el("div", "text"), at = 0;
    spans.sort(function (a, b) { return a[0] - b[0]; });
    spans.forEach(function (s) {
      if (s[0] < at) return;
      if (s[0] > at) box.appendChild(document.createTextNode(text.slice(at, s[0])));
      var mark = el("mark", "", text.slice(s[0], s[1]));
      mark.dataset.sentences = s[2].join(" ");
      mark.title = "closest span to answer sentence(s) " + s[2].map(function (x) { return x + 1; }).join(", ");
      box.appendChild(mark);
      at = s[1];
    });
    if (at < text.length) box.appendChild(document.createTextNode(text.slice(at)));
    return box;
  }
  function activate(n) {
    detail.querySelectorAll(".active").forEach(function (x) { x.classList.remove("active"); });
    var sentence = detail.querySelector('.sent[data-sentence="' + n + '"]');
    if (sentence) sentence.classList.add("active");
    detail.querySelectorAll("mark[data-sentences]").forEach(function (m) {
      if (m.dataset.sentences.split(" ").indexOf(String(n)) >= 0) { m.classList.add("active"); m.scrollIntoView({ block: "nearest" }); }
    });
  }

  function hideDetail() {
    detail.hidden = true;
    var row = tbody.querySelector('tr[data-check="' + state.selected + '"]');
    if (row) row.focus();
  }
  document.addEventListener("keydown", function (event) { if (event.key === "Escape" && !detail.hidden) hideDetail(); });

  function showDetail(i) {
    state.selected = i;
    tbody.querySelectorAll("tr.selected").forEach(function (tr) { tr.classList.remove("selected"); });
    var row = tbody.querySelector('tr[data-check="' + i + '"]');
    if (row) row.classList.add("selected");
    detail.replaceChildren();
    detail.hidden = false;
    detail.dataset.check = String(i);
    var close = el("button", "close", "\u00d7");
    close.type = "button";
    close.title = "close (Esc)";
    close.setAttribute("aria-label", "close the detail view");
    close.addEventListener("click", hideDetail);
    detail.appendChild(close);
    detail.appendChild(el("h2", "", S[C.metric[i]] + " \u00b7 " + STATUS[C.status[i]]));
    var d = C.detail[i] >= 0 ? D[C.detail[i]] : null;
    detail.appendChild(kv([
      ["check", checkLabel(i)],
      ["test", testId(i)],
      ["sample", d ? str(d.sid) : ""],
      ["judge", S[C.judge[i]]],
      ["score", num(C.score[i]) + (C.scale[i] >= 0 ? " on " + S[C.scale[i]] : "") + (d && d.norm !== null ? " (normalized " + num(d.norm) + ")" : "")],
      ["threshold", C.threshold[i] === null ? "none" : num(C.threshold[i])],
      ["expected score", C.expected && C.expected[i] !== null ? num(C.expected[i]) : ""],
      ["pass probability", C.pass_p && C.pass_p[i] !== null ? num(C.pass_p[i]) +
        (C.uncertain[i] ? " \u2014 uncertain: a rerun could decide this check either way" : "") : ""],
      ["judge calls", SOURCE[C.source[i]] + (d ? " \u2014 " + d.calls[0] + " live, " + d.calls[1] + " cached, " + d.calls[2] + " offline" + (d.calls[7] ? ", " + d.calls[7] + " from batches" : "") : "")],
      ["tokens", C.tokens[i].toLocaleString("en-US") + (d && d.calls[5] ? " \u00b7 $" + d.calls[5].toFixed(4) : "")]
    ]));
    if (!d) {
      detail.appendChild(el("p", "muted", "This check's texts and evidence were left out to keep the report small; " +
        "the results file (--rag-report=FILE.json) keeps its reasons and evidence."));
      return;
    }
    if (d.err >= 0) {
      detail.appendChild(el("h3", "", "Judge error" + (d.ek >= 0 ? " (" + str(d.ek) + ")" : "")));
      detail.appendChild(el("div", "error-box", str(d.err)));
    }
    if (d.why >= 0) { detail.appendChild(el("h3", "", "Judge's reasons")); detail.appendChild(el("div", "text", str(d.why))); }
    if (d.judges && d.judges.length > 1 || d.judges && d.judges.length === 1 && d.judges[0][2].length > 1) {
      detail.appendChild(el("h3", "", "Per judge"));
      detail.appendChild(renderValue(d.judges.map(function (j) { return { judge: str(j[0]), score: j[1], repeats: j[2] }; }), 1));
    }
    if (d.q >= 0) { detail.appendChild(el("h3", "", "Question")); detail.appendChild(el("div", "text", str(d.q))); }
    var answer = str(d.a);
    var byContext = {};
    (d.sent || []).forEach(function (s, n) {
      if (s[3] < 0) return;
      var list = byContext[s[3]] || (byContext[s[3]] = []);
      var same = list.filter(function (x) { return x[0] === s[4] && x[1] === s[5]; })[0];
      if (same) same[2].push(n); else list.push([s[4], s[5], [n]]);
    });
    if (d.a >= 0) {
      var flagged = (d.sent || []).filter(function (s) { return s[2]; }).length;
      detail.appendChild(el("h3", "", "Answer" + (flagged ? " \u2014 " + flagged + " sentence(s) marked unsupported" : "")));
      detail.appendChild(renderAnswer(answer, d.sent || [], byContext));
      if ((d.sent || []).some(function (s) { return s[3] >= 0; })) {
        detail.appendChild(el("p", "muted", "Click a sentence to highlight the context span closest to it (Cn = context n)."));
      }
    }
    if (d.c && d.c.length) {
      detail.appendChild(el("h3", "", "Retrieved contexts"));
      d.c.forEach(function (ci, k) {
        var wrap = el("div", "passage"), head = el("div", "head", "Context " + (k + 1));
        if (d.cg && d.cg[k] !== null && d.cg[k] !== undefined) head.appendChild(el("span", "badge", d.cg[k]));
        wrap.appendChild(head);
        wrap.appendChild(renderPassage(str(ci), byContext[k] || []));
        detail.appendChild(wrap);
      });
    }
    if (d.ref >= 0) { detail.appendChild(el("h3", "", "Reference")); detail.appendChild(el("div", "text", str(d.ref))); }
    if (d.cut) detail.appendChild(el("p", "muted", "Texts were cut to keep records small; the cut is marked with \u2026"));
    if (d.ev && Object.keys(d.ev).length) {
      var ev = el("div", "evidence");
      ev.appendChild(el("h3", "", "Evidence"));
      ev.appendChild(renderValue(d.ev, 0));
      detail.appendChild(ev);
    }
    var first = (d.sent || []).findIndex(function (s) { return s[2] && s[3] >= 0; });
    detail.scrollTop = 0;
    if (first >= 0) activate(first);
  }

  filterRows();
  renderTable();
  var fromHash = /^#check-(\d+)$/.exec(location.hash);
  if (fromHash && Number(fromHash[1]) < N) showDetail(Number(fromHash[1]));
  window.ragReport = { checks: N, shown: tbody.querySelectorAll("tr[data-check]").length, details: D.length,
    renderMs: performance.now() - started, showDetail: showDetail };
  document.documentElement.dataset.ragReady = "1";
})();
