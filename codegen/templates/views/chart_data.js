// The data of a chart view, made from the rows a tool answered: pure functions of their
// arguments, touching no page, so that a test loads this file alone (codegen/tests/views.rs).
// The page's script (view.js) draws what `chartRows` gives.
var chartData = (function () {
  /// The period (`YYYY-MM-DD` day or week's Monday, `YYYY-MM` month) a date falls in.
  function bucket(value, by) {
    var s = String(value).slice(0, 10);
    if (by === "month") { return s.slice(0, 7); }
    if (by === "week") {
      var m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
      if (!m) { return s; }
      var d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
      d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
      return d.toISOString().slice(0, 10);
    }
    return s;
  }
  function periodDate(p) {
    var m = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/.exec(p);
    return m ? new Date(Date.UTC(+m[1], +m[2] - 1, m[3] ? +m[3] : 1)) : null;
  }
  function iso(d) { return d.toISOString().slice(0, 10); }
  /// The period `n` periods after `p` (its first day's date).
  function periodAfter(p, by, n) {
    var d = periodDate(p);
    if (by === "month") { d.setUTCMonth(d.getUTCMonth() + n); return iso(d).slice(0, 7); }
    d.setUTCDate(d.getUTCDate() + n * (by === "week" ? 7 : 1));
    return iso(d);
  }
  /// At most this many periods on an axis (a day chart of almost three years).
  var MAX_PERIODS = 1000;
  /// Every period from `first` to `last`, both included, none left out: the axis of a chart over
  /// time, where a period without rows is a zero, not a gap.
  function periodsBetween(first, last, by) {
    var out = [];
    if (!periodDate(first) || !periodDate(last)) { return out; }
    for (var p = first; p <= last && out.length < MAX_PERIODS; p = periodAfter(p, by, 1)) { out.push(p); }
    return out;
  }
  /// The `c.ahead` periods from today's (`today`, the server's): every one, none before.
  function periodsAhead(c, today) {
    var first = bucket(today, c.by), out = [];
    for (var i = 0; i < c.ahead; i++) { out.push(periodAfter(first, c.by, i)); }
    return out;
  }
  /// The last day of period `p`.
  function periodEnd(p, by) {
    var d = periodDate(p);
    if (by === "month") { d.setUTCMonth(d.getUTCMonth() + 1); d.setUTCDate(0); }
    else if (by === "week") { d.setUTCDate(d.getUTCDate() + 6); }
    return iso(d);
  }
  /// The rows of chart `c` summed by period: `rowsBySeries` is, by series name, the rows of each
  /// (the rows themselves for a chart without sides). A chart over time (`c.date`) shows every
  /// period of its range, each series zero where no row falls: the `c.ahead` periods from
  /// `today`, or those from the first row's to the last's.
  function chartRows(c, rowsBySeries, today) {
    var out = {}, series;
    if (c.sides && c.sides.length) { series = c.sides.map(function (s) { return s.series; }); }
    else { series = c.series.length ? c.series : ["count"]; }
    var ahead = c.date && c.ahead ? periodsAhead(c, today) : null;
    if (ahead) { ahead.forEach(function (k) { out[k] = {}; }); }
    series.forEach(function (name) {
      var rows = c.sides && c.sides.length ? rowsBySeries[name] || [] : rowsBySeries;
      rows.forEach(function (r) {
        var key;
        if (c.date) { key = r[c.date] ? bucket(r[c.date], c.by) : null; } else {
          for (var i = 0; i < c.label.length; i++) { if (r[c.label[i]] !== undefined && r[c.label[i]] !== null) { key = String(r[c.label[i]]); break; } }
        }
        if (!key || (ahead && !out[key])) { return; }
        var o = out[key] || (out[key] = {});
        var add = function (s, field) {
          var v = c.date ? (field === "count" ? 1 : Number(r[field]) || 0) : Number(r[field]) || 0;
          o[s] = (o[s] || 0) + v;
        };
        if (c.sides && c.sides.length) { add(name, c.series[0] || "count"); } else { add(name, name); }
      });
    });
    var keys = Object.keys(out).sort();
    if (ahead) { keys = ahead; }
    else if (c.date && keys.length) { keys = periodsBetween(keys[0], keys[keys.length - 1], c.by); }
    keys.forEach(function (k) {
      var o = out[k] || (out[k] = {});
      series.forEach(function (s) { o[s] = o[s] || 0; });
    });
    var columns = series.slice();
    if (c.net && series.length > 1) {
      columns.push("net");
      keys.forEach(function (k) { var o = out[k]; o.net = series.slice(1).reduce(function (a, s) { return a - (o[s] || 0); }, o[series[0]] || 0); });
    }
    return { series: series, columns: columns, keys: keys, values: out };
  }
  return { bucket: bucket, periodDate: periodDate, iso: iso, periodsBetween: periodsBetween, periodsAhead: periodsAhead, periodEnd: periodEnd, chartRows: chartRows };
})();
