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
