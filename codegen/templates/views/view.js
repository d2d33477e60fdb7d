"use strict";
// The script of every kobana-mcp view: the MCP Apps view side (JSON-RPC over postMessage with the
// host: ui/initialize, tool results, host context, size changes, tools/call through the host),
// formatting in the view's locale, and drawing. Nothing here reaches the network: the page's
// data is the tool result the host hands it, and codes come drawn by the server (their modules).
(function () {
  var view = JSON.parse(document.getElementById("kobana-view").textContent);
  var settings = {};
  try { settings = JSON.parse(document.getElementById("kobana-settings").textContent) || {}; } catch (e) { settings = {}; }
  var LOCALES = ["pt-BR", "es", "en"];
  var locale = LOCALES.indexOf(settings.locale) >= 0 ? settings.locale : "pt-BR";
  var allowed = settings.actions || [];
  var nextId = 1;
  var pending = {};
  var lastResult = null;

  function t(key) {
    var table = view.texts[locale] || view.texts["pt-BR"];
    return (table && table[key]) || key;
  }
  function $(id) { return document.getElementById(id); }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) { for (var k in attrs) { e.setAttribute(k, attrs[k]); } }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  var SVG = "http://www.w3.org/2000/svg";
  function svg(tag, attrs) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    return e;
  }

  // --- the host ---------------------------------------------------------------------------
  function send(msg) { window.parent.postMessage(msg, "*"); }
  function request(method, params) {
    var id = nextId++;
    send({ jsonrpc: "2.0", id: id, method: method, params: params });
    return new Promise(function (resolve, reject) { pending[id] = { resolve: resolve, reject: reject }; });
  }
  function notify(method, params) { send({ jsonrpc: "2.0", method: method, params: params }); }
  window.addEventListener("message", function (ev) {
    if (ev.source !== window.parent) { return; }
    var m = ev.data;
    if (!m || m.jsonrpc !== "2.0") { return; }
    if (m.method === undefined && m.id !== undefined) {
      var p = pending[m.id];
      delete pending[m.id];
      if (p) { if (m.error) { p.reject(m.error); } else { p.resolve(m.result); } }
      return;
    }
    switch (m.method) {
      case "ui/notifications/tool-result": render(m.params || {}); break;
      case "ui/notifications/host-context-changed": applyContext(m.params || {}); break;
      case "ui/resource-teardown": if (m.id !== undefined) { send({ jsonrpc: "2.0", id: m.id, result: {} }); } break;
      case "ping": if (m.id !== undefined) { send({ jsonrpc: "2.0", id: m.id, result: {} }); } break;
      default:
        if (m.id !== undefined) { send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } }); }
    }
  });
  function applyContext(ctx) {
    var root = document.documentElement;
    if (ctx.theme === "dark" || ctx.theme === "light") { root.setAttribute("data-theme", ctx.theme); }
    var vars = ctx.styles && ctx.styles.variables;
    if (vars) { for (var k in vars) { if (k.indexOf("--") === 0 && typeof vars[k] === "string") { root.style.setProperty(k, vars[k]); } } }
    reportSize();
  }
  function reportSize() {
    var r = document.documentElement.getBoundingClientRect();
    notify("ui/notifications/size-changed", { width: Math.ceil(r.width), height: Math.ceil(document.documentElement.scrollHeight) });
  }

  // --- formatting in the view's locale --------------------------------------------------------
  function money(v) {
    var n = Number(v);
    if (!isFinite(n)) { return String(v); }
    // "R$" in every language (Spanish would write "BRL", wider and less familiar).
    return new Intl.NumberFormat(locale, { style: "currency", currency: "BRL", currencyDisplay: "narrowSymbol" }).format(n);
  }
  function number(v) { return new Intl.NumberFormat(locale).format(Number(v)); }
  function date(v) {
    var s = String(v);
    var m = /^(\d{4})-(\d{2})-(\d{2})(T.*)?$/.exec(s);
    if (!m) { return s; }
    var d = m[4] ? new Date(s) : new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
    if (isNaN(d.getTime())) { return s; }
    var opts = m[4] ? { dateStyle: "short", timeStyle: "short" } : { dateStyle: "short", timeZone: "UTC" };
    return new Intl.DateTimeFormat(locale, opts).format(d);
  }
  function documentNumber(v) {
    var d = String(v).replace(/\D/g, "");
    if (d.length === 11) { return d.replace(/(\d{3})(\d{3})(\d{3})(\d{2})/, "$1.$2.$3-$4"); }
    if (d.length === 14) { return d.replace(/(\d{2})(\d{3})(\d{3})(\d{4})(\d{2})/, "$1.$2.$3/$4-$5"); }
    return String(v);
  }
  function typeableLine(v) {
    var d = String(v).replace(/\D/g, "");
    if (d.length !== 47) { return String(v); }
    return d.slice(0, 5) + "." + d.slice(5, 10) + " " + d.slice(10, 15) + "." + d.slice(15, 21) + " " +
      d.slice(21, 26) + "." + d.slice(26, 32) + " " + d.slice(32, 33) + " " + d.slice(33);
  }
  /// The locale's label of a coded value (a status), from the catalog's labels; null when it has none.
  function label(field, v) {
    var table = ((view.values || {})[locale] || {})[field];
    var k = String(v);
    return table && Object.prototype.hasOwnProperty.call(table, k) ? table[k] : null;
  }
  function show(field, v) {
    if (v === null || v === undefined || v === "") { return "—"; }
    var named = label(field, v);
    if (named !== null) { return named; }
    if (/(^|_)amount$|_total$|^amount_|^cost$/.test(field)) { return money(v); }
    if (/(_at|_date|_on)$|^date$/.test(field)) { return date(v); }
    if (/cnpj|cpf|document_number/.test(field)) { return documentNumber(v); }
    if (field === "line") { return typeableLine(v); }
    if (typeof v === "number") { return number(v); }
    if (typeof v === "object") { return JSON.stringify(v); }
    return String(v);
  }
  /// The typeable line in its groups, each kept whole when the line wraps.
  function lineElement(v) {
    var span = el("span", { class: "mono line" });
    show("line", v).split(" ").forEach(function (g, i) {
      if (i) { span.appendChild(document.createTextNode(" ")); }
      span.appendChild(el("span", { class: "group" }, g));
    });
    return span;
  }
  function valueAt(record, path) {
    var parts = path.split("."), v = record;
    for (var i = 0; i < parts.length; i++) { if (v === null || typeof v !== "object") { return undefined; } v = v[parts[i]]; }
    return v;
  }

  // --- the result ---------------------------------------------------------------------------
  function payload(result) {
    var sc = result.structuredContent;
    if (sc === undefined && result.content && result.content[0] && result.content[0].type === "text") {
      try { sc = JSON.parse(result.content[0].text); } catch (e) { sc = undefined; }
    }
    if (sc && !Array.isArray(sc) && sc.result !== undefined && Object.keys(sc).length === 1) { sc = sc.result; }
    return sc;
  }
  function recordOf(sc) {
    if (sc && !Array.isArray(sc) && sc.data && typeof sc.data === "object" && !Array.isArray(sc.data)) { return sc.data; }
    return sc;
  }
  function rowsOf(sc) {
    if (Array.isArray(sc)) { return sc; }
    if (sc && typeof sc === "object") {
      for (var k in sc) { if (Array.isArray(sc[k])) { return sc[k]; } }
    }
    return [];
  }
  function render(result) {
    lastResult = result;
    var lang = result._meta && result._meta["io.modelcontextprotocol/contentLanguage"];
    if (LOCALES.indexOf(lang) >= 0) { locale = lang; }
    document.documentElement.setAttribute("lang", locale);
    $("title").textContent = t("title");
    $("waiting").hidden = true;
    $("note").textContent = "";
    if (result.isError) {
      $("note").textContent = (result.content && result.content[0] && result.content[0].text) || "";
      reportSize();
      return;
    }
    var sc = payload(result);
    if (view.chart && view.chart.sides && view.chart.sides.length) {
      // Both sides come from their own tools (the result says only which was asked first).
      $("waiting").hidden = false;
      loadSides().then(function (bySeries) {
        $("waiting").hidden = true;
        renderChart(bySeries);
        reportSize();
      }, function (err) {
        $("waiting").hidden = true;
        $("note").textContent = (err && err.message) || String(err);
        reportSize();
      });
    } else if (view.chart) { renderChart(rowsOf(sc)); } else { renderRecord(recordOf(sc) || {}, (result._meta && result._meta["com.kobana/codes"]) || {}); }
    reportSize();
  }

  // --- a record -----------------------------------------------------------------------------
  function copyText(text, button) {
    var done = function () { button.textContent = t("copied"); setTimeout(function () { button.textContent = t("copy"); }, 2000); };
    var fallback = function () {
      var area = el("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed"; area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      try { document.execCommand("copy"); } catch (e) { /* nothing more to try */ }
      document.body.removeChild(area);
      done();
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(done, fallback);
    } else { fallback(); }
  }
  function renderRecord(record, codes) {
    var badge = $("badge");
    if (record.status) {
      badge.textContent = show("status", record.status);
      badge.setAttribute("data-status", String(record.status));
      badge.hidden = false;
    } else { badge.hidden = true; }
    var dl = $("fields");
    dl.textContent = "";
    view.fields.forEach(function (f) {
      var v = valueAt(record, f);
      if (f === "url") {
        if (!v) { return; }
        dl.appendChild(el("dt", null, t(f)));
        var dd = el("dd");
        var a = el("a", { href: String(v), "data-field": f, rel: "noopener" }, t("pdf"));
        a.addEventListener("click", function (ev) { ev.preventDefault(); request("ui/open-link", { url: String(v) }).catch(function () {}); });
        dd.appendChild(a);
        dl.appendChild(dd);
        return;
      }
      dl.appendChild(el("dt", null, t(f)));
      var d = el("dd", { "data-field": f });
      var span = f === "line" ? lineElement(v) : el("span", null, show(f, v));
      d.appendChild(span);
      if (view.copy.indexOf(f) >= 0 && v) {
        var b = el("button", { type: "button", "data-copy": f }, t("copy"));
        b.addEventListener("click", function () { copyText(String(v), b); });
        var row = el("div", { class: "row" });
        row.appendChild(span);
        row.appendChild(b);
        d.appendChild(row);
      }
      dl.appendChild(d);
    });
    var box = $("codes");
    box.textContent = "";
    view.codes.forEach(function (c) {
      var drawn = codes[c.field];
      if (!drawn) { return; }
      var fig = el("figure", { "data-code": c.field });
      fig.appendChild(el("figcaption", null, t(c.field)));
      fig.appendChild(c.format === "qr" ? drawQr(drawn) : drawItf(drawn));
      var v = valueAt(record, c.field);
      if (c.format === "qr" && v) {
        var b = el("button", { type: "button", "data-copy": c.field }, t("copy"));
        b.addEventListener("click", function () { copyText(String(v), b); });
        fig.appendChild(b);
      }
      box.appendChild(fig);
    });
    var nav = $("actions");
    nav.textContent = "";
    view.actions.forEach(function (a) {
      if (allowed.indexOf(a.tool) < 0) { return; }
      var b = el("button", { type: "button", class: "danger", "data-tool": a.tool }, t(a.tool));
      b.addEventListener("click", function () {
        var args = {};
        for (var k in a.arguments) { args[k] = valueAt(record, a.arguments[k]); }
        b.disabled = true;
        request("tools/call", { name: a.tool, arguments: args }).then(function (r) {
          b.disabled = false;
          var text = r && r.content && r.content[0] && r.content[0].text;
          $("note").textContent = text || "";
          reportSize();
        }, function (err) {
          b.disabled = false;
          $("note").textContent = (err && err.message) || String(err);
          reportSize();
        });
      });
      nav.appendChild(b);
    });
  }
  /// Interleaved 2 of 5: `modules` is the bar pattern, one character per module ("1" a bar).
  function drawItf(code) {
    var mods = String(code.modules), unit = 2, quiet = 10, height = 64;
    var width = (mods.length + 2 * quiet) * unit;
    var s = svg("svg", { width: width, height: height, viewBox: "0 0 " + width + " " + height, class: "code", role: "img", "shape-rendering": "crispEdges" });
    s.appendChild(svg("rect", { x: 0, y: 0, width: width, height: height, fill: "#ffffff" }));
    var d = "";
    for (var i = 0; i < mods.length; i++) {
      if (mods[i] !== "1") { continue; }
      var j = i;
      while (j + 1 < mods.length && mods[j + 1] === "1") { j++; }
      d += "M" + ((quiet + i) * unit) + " 0h" + ((j - i + 1) * unit) + "v" + height + "h-" + ((j - i + 1) * unit) + "z";
      i = j;
    }
    s.appendChild(svg("path", { d: d, fill: "#000000" }));
    return s;
  }
  /// A QR code: `modules` holds its `width` rows, one character per module ("1" dark).
  function drawQr(code) {
    var n = code.width, mods = String(code.modules), unit = 5, quiet = 4;
    var size = (n + 2 * quiet) * unit;
    var s = svg("svg", { width: size, height: size, viewBox: "0 0 " + size + " " + size, class: "code", role: "img", "shape-rendering": "crispEdges" });
    s.appendChild(svg("rect", { x: 0, y: 0, width: size, height: size, fill: "#ffffff" }));
    var d = "";
    for (var y = 0; y < n; y++) {
      for (var x = 0; x < n; x++) {
        if (mods[y * n + x] === "1") { d += "M" + ((x + quiet) * unit) + " " + ((y + quiet) * unit) + "h" + unit + "v" + unit + "h-" + unit + "z"; }
      }
    }
    s.appendChild(svg("path", { d: d, fill: "#000000" }));
    return s;
  }

  // --- a chart ------------------------------------------------------------------------------
  var periodDate = chartData.periodDate, iso = chartData.iso;
  /// Today as the server sees it (the day its prompts call today), the browser's when not given.
  function today() { return /^\d{4}-\d{2}-\d{2}$/.test(settings.today || "") ? settings.today : iso(new Date()); }
  function periodLabel(p) {
    if (/^\d{4}-\d{2}$/.test(p)) {
      return new Intl.DateTimeFormat(locale, { month: "short", year: "numeric", timeZone: "UTC" }).format(periodDate(p));
    }
    return date(p);
  }
  /// A period's label under the chart: short (day and month, or month and year), in the locale's order.
  function axisLabel(p) {
    var d = periodDate(p);
    if (!d) { return String(p); }
    var opts = /^\d{4}-\d{2}$/.test(p) ? { month: "short", year: "2-digit", timeZone: "UTC" } : { day: "2-digit", month: "2-digit", timeZone: "UTC" };
    return new Intl.DateTimeFormat(locale, opts).format(d);
  }
  /// `rows` summed by period (see chart_data.js).
  function chartRows(rowsBySeries) { return chartData.chartRows(view.chart, rowsBySeries, today()); }
  /// A side's records in the periods ahead: its tool called through the host for each argument
  /// set, page after page (a page shorter than asked is the last).
  var PER_PAGE = 50, MAX_PAGES = 40;
  function sideRows(side, from, to) {
    var c = view.chart, sets = side.arguments && side.arguments.length ? side.arguments : [{}];
    return Promise.all(sets.map(function (set) {
      var rows = [];
      var page = function (n) {
        var args = {};
        for (var k in set) { args[k] = set[k]; }
        args[c.date + "_from"] = from; args[c.date + "_to"] = to; args.page = n; args.per_page = PER_PAGE;
        return request("tools/call", { name: side.tool, arguments: args }).then(function (r) {
          if (!r || r.isError) { throw new Error((r && r.content && r.content[0] && r.content[0].text) || side.tool); }
          var got = rowsOf(payload(r));
          rows = rows.concat(got);
          return got.length >= PER_PAGE && n < MAX_PAGES ? page(n + 1) : rows;
        });
      };
      return page(1);
    })).then(function (lists) { return [].concat.apply([], lists); });
  }
  function loadSides() {
    var c = view.chart, periods = chartData.periodsAhead(c, today());
    var from = periods[0], to = chartData.periodEnd(periods[periods.length - 1], c.by), bySeries = {};
    return Promise.all(c.sides.map(function (side) {
      return sideRows(side, from, to).then(function (rows) { bySeries[side.series] = rows; });
    })).then(function () { return bySeries; });
  }
  var COLORS = { 0: "var(--k-credit)", 1: "var(--k-debit)", 2: "var(--k-accent)", 3: "var(--k-muted)" };
  var lastChart = null;
  function renderChart(rows) {
    lastChart = rows;
    var data = chartRows(rows), c = view.chart;
    var fmt = function (v) { return c.money ? money(v) : number(v); };
    var legend = $("legend");
    legend.textContent = "";
    data.columns.forEach(function (s, i) { var sp = el("span", { style: "--swatch:" + (s === "net" ? "var(--k-fg)" : COLORS[i % 4]), "data-series": s }, t(s)); legend.appendChild(sp); });
    var max = 0, min = 0;
    data.keys.forEach(function (k) { data.columns.forEach(function (s) { var v = data.values[k][s] || 0; max = Math.max(max, v); min = Math.min(min, v); }); });
    var plot = $("plot");
    plot.textContent = "";
    // Drawn at the plot's own width, so that text keeps its size and labels are thinned to fit.
    var W = Math.max(240, Math.floor(plot.clientWidth || 640)), H = 200, left = 4, bottom = 24, top = 8, font = 12;
    var chart = svg("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": t("title") });
    var band = data.keys.length ? (W - left) / data.keys.length : W;
    var span = (max - min) || 1, inner = H - bottom - top;
    var y = function (v) { return top + ((max - v) / span) * inner; };
    // Bars at most 48 px wide, centred in their period (one month of a statement is no wall).
    var bars = data.series, barW = Math.min(48, Math.max(1, (band * 0.8) / bars.length));
    var inset = (band - barW * bars.length) / 2;
    data.keys.forEach(function (k, i) {
      bars.forEach(function (s, j) {
        var v = data.values[k][s] || 0;
        var rect = svg("rect", { x: left + i * band + inset + j * barW, y: Math.min(y(v), y(0)), width: barW, height: Math.abs(y(v) - y(0)), fill: COLORS[j % 4] });
        var tip = svg("title", {});
        tip.textContent = periodLabel(k) + " · " + t(s) + ": " + fmt(v);
        rect.appendChild(tip);
        chart.appendChild(rect);
      });
    });
    if (data.columns.indexOf("net") >= 0) {
      var pts = data.keys.map(function (k, i) { return (left + i * band + band / 2) + "," + y(data.values[k].net || 0); }).join(" ");
      chart.appendChild(svg("polyline", { points: pts, fill: "none", stroke: "var(--k-fg)", "stroke-width": 2, "data-series": "net" }));
    }
    // Labels, thinned: every `step`th, `step` so that none overlaps the next (a label is about
    // 0.62 em a character wide), and none leaves the plot.
    var labels = data.keys.map(axisLabel);
    var widest = labels.reduce(function (a, l) { return Math.max(a, l.length * font * 0.62); }, 0);
    var step = Math.max(1, Math.ceil((widest + font) / band));
    for (var i = 0; i < data.keys.length; i += step) {
      var x = Math.min(Math.max(left + i * band + band / 2, widest / 2), W - widest / 2);
      var text = svg("text", { x: x, y: H - bottom + font + 4, "text-anchor": "middle", "font-size": font, "data-period": data.keys[i] });
      text.textContent = labels[i];
      chart.appendChild(text);
    }
    chart.appendChild(svg("line", { x1: left, y1: y(0), x2: W, y2: y(0), stroke: "currentColor", "stroke-opacity": "0.3" }));
    plot.appendChild(chart);
    var table = $("table");
    table.textContent = "";
    var head = el("tr");
    head.appendChild(el("th", null, t("period")));
    data.columns.forEach(function (s) { head.appendChild(el("th", null, t(s))); });
    table.appendChild(head);
    var totals = {};
    data.keys.forEach(function (k) {
      var tr = el("tr", { "data-period": k });
      // On a narrow screen a day or week is written short (its full date in the title), so that
      // every column fits without scrolling.
      var narrow = document.documentElement.clientWidth < 420 && !/^\d{4}-\d{2}$/.test(k);
      tr.appendChild(el("td", { title: periodLabel(k) }, narrow ? axisLabel(k) : periodLabel(k)));
      data.columns.forEach(function (s) { totals[s] = (totals[s] || 0) + (data.values[k][s] || 0); tr.appendChild(el("td", null, fmt(data.values[k][s] || 0))); });
      table.appendChild(tr);
    });
    var foot = el("tr", { class: "total" });
    foot.appendChild(el("th", null, t("total")));
    data.columns.forEach(function (s) { foot.appendChild(el("th", null, fmt(totals[s] || 0))); });
    table.appendChild(foot);
  }
  var lastWidth = 0;
  window.addEventListener("resize", function () {
    var w = $("plot") && $("plot").clientWidth;
    if (lastChart !== null && w && w !== lastWidth) { lastWidth = w; renderChart(lastChart); reportSize(); }
  });

  // --- start --------------------------------------------------------------------------------
  document.documentElement.setAttribute("lang", locale);
  $("title").textContent = t("title");
  $("waiting").textContent = t("waiting");
  window.kobanaView = { render: render, get locale() { return locale; }, get result() { return lastResult; } };
  if (window.ResizeObserver) { new ResizeObserver(function () { reportSize(); }).observe(document.body); }
  request("ui/initialize", {
    appInfo: { name: "kobana-" + view.product + "-" + view.name, version: "1" },
    appCapabilities: {},
    protocolVersion: "2026-01-26"
  }).then(function (r) {
    applyContext((r && r.hostContext) || {});
    notify("ui/notifications/initialized", {});
  }, function () { /* a host that refuses leaves the page waiting */ });
})();
