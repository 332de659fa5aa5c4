// The dashboard's own script: small enhancements only; every form works without it.
(function () {
  'use strict';
  // [data-copy="#id"]: copies the text of the element it names (secrets shown once).
  document.addEventListener('click', function (event) {
    var button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
    if (!button || !navigator.clipboard) return;
    var source = document.querySelector(button.getAttribute('data-copy'));
    if (!source) return;
    navigator.clipboard.writeText(source.textContent.trim()).then(function () {
      button.setAttribute('data-copied', 'true');
      var status = document.getElementById(button.getAttribute('aria-controls') || '');
      if (status) status.textContent = 'Copied.';
    });
  });
  // Keep the CSRF header current after htmx swaps in a rotated token.
  document.addEventListener('htmx:configRequest', function (event) {
    var meta = document.querySelector('meta[name="csrf-token"]');
    if (meta) event.detail.headers['X-CSRF-Token'] = meta.getAttribute('content');
  });
  // Move focus to an error summary so screen readers announce it.
  var summary = document.querySelector('.error-summary');
  if (summary) summary.focus();
})();

// Keys page: the copy button of a key shown once appears only where the clipboard works;
// without it the key stays plain selectable text.
(function () {
  'use strict';
  if (!navigator.clipboard) return;
  document.querySelectorAll('.copy-button[data-copy][hidden]').forEach(function (button) {
    button.hidden = false;
  });
})();

// Usage page: draws the requests-per-day chart from its JSON data island (#usage-chart-data)
// with uPlot, one stacked band per status class; the table beside it holds the same numbers.
(function () {
  'use strict';
  var island = document.getElementById('usage-chart-data');
  var target = document.getElementById('usage-chart');
  if (!island || !target || typeof window.uPlot !== 'function') return;
  var data = JSON.parse(island.textContent);
  var colours = { '2xx': '#137333', '3xx': '#0b57d0', '4xx': '#b06000', '5xx': '#b00020' };
  // Stacked: each series is drawn as the running total of itself and those before it.
  var totals = data.x.map(function () {
    return 0;
  });
  var stacked = data.series.map(function (s) {
    return s.values.map(function (v, i) {
      totals[i] += v;
      return totals[i];
    });
  });
  var series = [{}].concat(
    data.series.map(function (s) {
      var colour = colours[s.label] || '#4a5260';
      return { label: s.label, stroke: colour, fill: colour + '33', width: 2 };
    }),
  );
  var width = function () {
    return Math.max(280, Math.min(target.clientWidth || 800, 900));
  };
  var chart = new window.uPlot(
    {
      width: width(),
      height: 260,
      series: series.slice(0, 1).concat(series.slice(1).reverse()),
      axes: [{}, { label: 'Requests' }],
      scales: { x: { time: true } },
    },
    [data.x].concat(stacked.slice().reverse()),
    target,
  );
  window.addEventListener('resize', function () {
    chart.setSize({ width: width(), height: 260 });
  });
})();
