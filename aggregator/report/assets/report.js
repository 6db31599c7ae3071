/* absa-aggregator report: charts and sample table from the JSON block #report-data (text set only via textContent). */
(function () {
  "use strict";

  var PAGE_SIZE = 25;
  var data = JSON.parse(document.getElementById("report-data").textContent);

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function drawCharts(specs) {
    var holders = document.querySelectorAll("[data-chart]");
    Array.prototype.forEach.call(holders, function (holder) {
      var spec = specs[holder.getAttribute("data-chart")];
      function fail(err) {
        console.error("chart " + holder.getAttribute("data-chart") + ": " + err);
        holder.textContent = "This chart could not be drawn: " + err;
        holder.className += " chart-error";
      }
      if (!spec) return fail("no specification");
      try {
        var compiled = vegaLite.compile(spec).spec;
        var view = new vega.View(vega.parse(compiled), { renderer: "svg", container: holder, hover: true });
        view.runAsync().catch(fail);
      } catch (err) {
        fail(err);
      }
    });
  }

  function fmt(value) {
    return value === null || value === undefined ? "N/A" : Number(value).toFixed(4);
  }

  /* marks: one character per tuple under the selected unit (aggregator/sample_marks.py):
     m = its pair matches (for gold: found by the final stage), x = not matched, - = no pair in the unit;
     M / X: the same, and the pair is not in the other stage (dropped from stage 1, added in the final) */
  var MARK_CLASSES = { m: "in-gold", x: "", "-": "outside" };
  var GOLD_MARK_CLASSES = { m: "in-gold", x: "missed", "-": "outside" };

  function stageMark(mark, changed) {
    var lower = mark.toLowerCase();
    return MARK_CLASSES[lower] + (mark !== lower ? " " + changed : "");
  }

  /* "← Previous · 26–50 of 120 samples · Next →" for state.page of PAGE_SIZE rows; redraw() after a click. */
  function drawPager(holder, state, total, noun, redraw) {
    var pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
    holder.textContent = "";
    var prev = el("button", null, "\u2190 Previous");
    prev.type = "button";
    prev.disabled = state.page === 0;
    prev.addEventListener("click", function () { state.page -= 1; redraw(); });
    var next = el("button", null, "Next \u2192");
    next.type = "button";
    next.disabled = state.page >= pages - 1;
    next.addEventListener("click", function () { state.page += 1; redraw(); });
    var first = total ? state.page * PAGE_SIZE + 1 : 0;
    var last = Math.min(total, (state.page + 1) * PAGE_SIZE);
    holder.appendChild(prev);
    holder.appendChild(el("span", "range", first + "\u2013" + last + " of " + total + " " + noun));
    holder.appendChild(next);
  }

  function tupleList(tuples, mark) {
    var cell = el("td");
    if (!tuples.length) {
      cell.appendChild(el("span", "empty-list", "none"));
      return cell;
    }
    tuples.forEach(function (t, j) {
      var row = el("div", "tuple " + (mark ? mark(t, j) : ""));
      row.appendChild(t[0] ? el("span", "ref", t[0]) : el("span", "ref empty", "no ref"));
      row.appendChild(t[1] ? el("span", "term", "\u201c" + t[1] + "\u201d") : el("span", "term empty", "implicit"));
      var known = ["positive", "negative", "neutral"].indexOf(t[2]) >= 0;
      row.appendChild(el("span", "pol " + (known ? t[2] : "other"), t[2]));
      cell.appendChild(row);
    });
    return cell;
  }

  var FILTERS = [
    ["all", "All", "every sample"],
    ["fix", "Fixes", "wrong at stage 1, correct at the final stage"],
    ["break", "Breaks", "correct at stage 1, wrong at the final stage"],
    ["miss", "Misses", "wrong at the final stage (still wrong or broken)"],
    ["changed", "Changed", "the review changed the pairs of the selected unit"],
  ];

  function sampleTable(s, root) {
    var n = s.key.length;
    var units = Object.keys(s.units);
    var state = { unit: units[0], filter: "all", query: "", sort: "key", page: 0 };
    var haystack = null;

    function matches(i, filter, unit) {
      if (errorFilter && !errorFilter(unit, i)) return false;
      var move = s.units[unit].transition[i];
      if (filter === "all") return true;
      if (filter === "changed") return changedUnder(unit, i);
      if (!s.has_gold[i]) return false;
      if (filter === "miss") return move === "break" || move === "still";
      return move === filter;
    }

    function changedUnder(unit, i) {
      var m = s.units[unit].marks;
      return /[MX]/.test(m.s1[i]) || /[MX]/.test(m.s2[i]);
    }

    function searchText(i) {
      if (haystack === null) {
        haystack = new Array(n);
        for (var j = 0; j < n; j++) {
          haystack[j] = [s.key[j], s.text[j], s.run ? s.run[j] : "", JSON.stringify(s.gold[j]), JSON.stringify(s.s1[j]),
            JSON.stringify(s.s2[j])].join("\n").toLowerCase();
        }
      }
      return haystack[i];
    }

    function selected() {
      var out = [];
      var q = state.query.trim().toLowerCase();
      for (var i = 0; i < n; i++) {
        if (matches(i, state.filter, state.unit) && (!q || searchText(i).indexOf(q) >= 0)) out.push(i);
      }
      if (state.sort !== "key") {
        var u = s.units[state.unit];
        var sign = state.sort === "gain" ? -1 : 1;
        out.sort(function (a, b) {
          var da = (u.f1_s2[a] || 0) - (u.f1_s1[a] || 0), db = (u.f1_s2[b] || 0) - (u.f1_s1[b] || 0);
          return sign * (da - db) || a - b;
        });
      }
      return out;
    }

    var controls = el("div", "controls");
    var unitLabel = el("label", null, "Unit ");
    var unitSelect = el("select");
    unitSelect.id = "sample-unit";
    units.forEach(function (u) {
      var option = el("option", null, s.units[u].name);
      option.value = u;
      unitSelect.appendChild(option);
    });
    unitLabel.appendChild(unitSelect);
    controls.appendChild(unitLabel);
    var chips = {};
    FILTERS.forEach(function (f) {
      var chip = el("button", "chip", f[1]);
      chip.type = "button";
      chip.title = f[2];
      chip.setAttribute("data-filter", f[0]);
      chip.appendChild(el("span", "count"));
      chip.addEventListener("click", function () {
        state.filter = f[0];
        state.page = 0;
        render();
      });
      chips[f[0]] = chip;
      controls.appendChild(chip);
    });
    var search = el("input");
    search.type = "search";
    search.placeholder = "Search sentence, sample key or tuple";
    search.setAttribute("aria-label", "search samples");
    controls.appendChild(search);
    var sortLabel = el("label", null, "Sort ");
    var sortSelect = el("select");
    [["key", "by sample key"], ["drop", "largest F1 drop first"], ["gain", "largest F1 gain first"]].forEach(function (o) {
      var option = el("option", null, o[1]);
      option.value = o[0];
      sortSelect.appendChild(option);
    });
    sortLabel.appendChild(sortSelect);
    controls.appendChild(sortLabel);
    var errorFilter = window.absaErrorFilter && window.absaErrorFilter(s, controls, function () { state.page = 0; render(); });
    root.appendChild(controls);

    var legend = el("div", "legend");
    legend.appendChild(el("span", "l-gold", "matches gold under the unit"));
    legend.appendChild(el("span", "l-missed", "gold not found at the final stage"));
    legend.appendChild(el("span", "l-outside", "no pair under the unit (greyed)"));
    legend.appendChild(el("span", "l-added", "added by the review"));
    legend.appendChild(el("span", "l-dropped", "dropped by the review (struck through)"));
    root.appendChild(legend);

    var pagerTop = el("div", "pager");
    root.appendChild(pagerTop);
    var table = el("table", "samples");
    var head = el("tr");
    [["key", "Sample"], ["move", "Transition"], ["f1", "F1 S1 \u2192 final"], ["", "Gold"], ["", "Stage 1"],
      ["", "Final"]].forEach(function (h) {
      head.appendChild(el("th", h[0], h[1]));
    });
    var thead = el("thead");
    thead.appendChild(head);
    table.appendChild(thead);
    var tbody = el("tbody");
    table.appendChild(tbody);
    root.appendChild(table);
    var pagerBottom = el("div", "pager");
    root.appendChild(pagerBottom);

    function row(i) {
      var u = s.units[state.unit];
      var tr = el("tr");
      var key = el("td", "key", s.key[i]);
      if (s.run) key.appendChild(el("div", "sub", s.run[i]));
      if (s.text[i]) key.appendChild(el("div", "sentence", s.text[i]));
      tr.appendChild(key);
      var move = el("td", "move");
      move.appendChild(s.has_gold[i] ? el("span", "badge " + u.transition[i], u.transition[i]) :
        el("span", "badge nogold", "no gold"));
      if (changedUnder(state.unit, i)) move.appendChild(el("div", "sub", "changed"));
      tr.appendChild(move);
      tr.appendChild(el("td", "f1", fmt(u.f1_s1[i]) + " \u2192 " + fmt(u.f1_s2[i])));
      var marks = u.marks;
      tr.appendChild(tupleList(s.gold[i], function (t, j) { return GOLD_MARK_CLASSES[marks.gold[i][j]]; }));
      tr.appendChild(tupleList(s.s1[i], function (t, j) { return stageMark(marks.s1[i][j], "dropped"); }));
      tr.appendChild(tupleList(s.s2[i], function (t, j) { return stageMark(marks.s2[i][j], "added"); }));
      return tr;
    }

    function render() {
      FILTERS.forEach(function (f) {
        var count = 0;
        for (var i = 0; i < n; i++) if (matches(i, f[0], state.unit)) count++;
        chips[f[0]].lastChild.textContent = String(count);
        chips[f[0]].setAttribute("aria-pressed", String(state.filter === f[0]));
      });
      var rows = selected();
      var pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
      state.page = Math.min(state.page, pages - 1);
      tbody.textContent = "";
      rows.slice(state.page * PAGE_SIZE, (state.page + 1) * PAGE_SIZE).forEach(function (i) {
        tbody.appendChild(row(i));
      });
      if (!rows.length) {
        var empty = el("tr");
        var cell = el("td", "empty-list", "No sample matches.");
        cell.colSpan = 6;
        empty.appendChild(cell);
        tbody.appendChild(empty);
      }
      drawPager(pagerTop, state, rows.length, "samples", render);
      drawPager(pagerBottom, state, rows.length, "samples", render);
    }

    unitSelect.addEventListener("change", function () { state.unit = unitSelect.value; state.page = 0; render(); });
    sortSelect.addEventListener("change", function () { state.sort = sortSelect.value; state.page = 0; render(); });
    search.addEventListener("input", function () { state.query = search.value; state.page = 0; render(); });
    render();
  }

  /* Long tables (a comparison of many conditions) show PAGE_SIZE rows at a time, with a filter over
     their text; short ones are left as they are. */

  function pageTable(table) {
    var rows = Array.prototype.slice.call(table.tBodies[0] ? table.tBodies[0].rows : []);
    if (rows.length <= PAGE_SIZE) return;
    var state = { page: 0, query: "" };
    var texts = rows.map(function (r) { return r.textContent.toLowerCase(); });
    var controls = el("div", "controls table-controls");
    var filter = el("input");
    filter.type = "search";
    filter.placeholder = "Filter rows (e.g. a condition name)";
    filter.setAttribute("aria-label", "filter table rows");
    controls.appendChild(filter);
    var holder = el("div", "pager");
    controls.appendChild(holder);
    table.parentNode.insertBefore(controls, table);

    function show() {
      var q = state.query.trim().toLowerCase();
      var chosen = [];
      rows.forEach(function (r, i) { if (!q || texts[i].indexOf(q) >= 0) chosen.push(i); });
      var pages = Math.max(1, Math.ceil(chosen.length / PAGE_SIZE));
      state.page = Math.min(state.page, pages - 1);
      var visible = {};
      chosen.slice(state.page * PAGE_SIZE, (state.page + 1) * PAGE_SIZE).forEach(function (i) { visible[i] = true; });
      rows.forEach(function (r, i) { r.style.display = visible[i] ? "" : "none"; });
      drawPager(holder, state, chosen.length, "rows", show);
    }

    filter.addEventListener("input", function () { state.query = filter.value; state.page = 0; show(); });
    show();
  }

  drawCharts(data.charts || {});
  Array.prototype.forEach.call(document.querySelectorAll("table.data"), pageTable);
  var holder = document.getElementById("sample-table");
  if (holder && data.samples) sampleTable(data.samples, holder);
})();
