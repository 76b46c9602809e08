/*
 * Charts of /dashboard with uPlot (served by the node from its npm package). The figures are in
 * the page's tables already; these charts only draw them, from the page's JSON data block.
 */
/* global uPlot, document */
(function () {
  'use strict';
  var block = document.getElementById('dashboard-data');
  if (!block || typeof uPlot === 'undefined') return;
  var data = JSON.parse(block.textContent);
  var seconds = function (iso) { return Date.parse(iso) / 1000; };

  function width(element) {
    return Math.max(300, Math.min(element.clientWidth || 640, 900));
  }

  // The tables are in UTC: so are the axes.
  var utc = function (ts) { return uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'); };

  function chart(id, xs, series, pad) {
    var element = document.getElementById(id);
    if (!element || xs.length === 0) return;
    var opts = {
      width: width(element),
      height: 220,
      tzDate: utc,
      // Half a step of room at each end, so the first and last bars are drawn whole.
      scales: { x: { time: true, range: function (u, min, max) { return [min - pad, max + pad]; } } },
      axes: [{ stroke: '#1b1b1b' }, { stroke: '#1b1b1b' }],
    };
    // uPlot takes the values apart from the series options ("values" is a legend option there).
    var columns = [xs].concat(series.map(function (serie) { return serie.data; }));
    opts.series = [{}].concat(series.map(function (serie) {
      var copy = {};
      for (var key in serie) if (key !== 'data') copy[key] = serie[key];
      return copy;
    }));
    new uPlot(opts, columns, element);
  }

  var bars = uPlot.paths && uPlot.paths.bars ? uPlot.paths.bars({ size: [0.6, 40] }) : undefined;
  chart('chart-stored', data.stored.days.map(function (day) { return seconds(day + 'T00:00:00Z'); }), [
    { label: 'Documents stored', stroke: '#0b4f8a', fill: 'rgba(11,95,165,0.35)', paths: bars, data: data.stored.counts },
  ], 43200);
  chart('chart-requests', data.requests.minutes.map(seconds), [
    { label: 'Requests', stroke: '#0b4f8a', width: 2, data: data.requests.requests },
    { label: '4xx', stroke: '#8a5a00', width: 2, data: data.requests.clientErrors },
    { label: '5xx', stroke: '#a4161a', width: 2, data: data.requests.serverErrors },
  ], 30);
})();
