"""The site's only stylesheet and script, written beside the pages: no CDN, no web fonts.

The script makes every `table.sortable` sortable by clicking a header: cells sort by their
`data-sort` value, numerically when both values are numbers, else as text; a second click reverses.
"""

CSS = """
:root { --fg: #1d2330; --muted: #5b6475; --line: #d9dee7; --ref: #f6f3e8; --best: #0b5; --accent: #3157d5; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); margin: 0; }
header { background: #17203a; color: #fff; padding: 14px 24px; }
header h1 { margin: 0; font-size: 20px; }
header p { margin: 4px 0 0; color: #c5cbe0; font-size: 13px; }
nav { background: #eef1f7; padding: 8px 24px; border-bottom: 1px solid var(--line); }
nav a { margin-right: 14px; color: var(--accent); text-decoration: none; }
nav a.here { font-weight: 600; color: var(--fg); }
main { padding: 16px 24px 48px; max-width: 1500px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 13px; margin: 6px 0; }
/* Numbers never wrap; labels, text and headers wrap where their words allow, so a table fits the page
   where it can (the headline columns in view at 1280 px) and scrolls sideways where it cannot. */
th, td { border-bottom: 1px solid var(--line); padding: 4px 7px; text-align: right; white-space: nowrap; vertical-align: top; }
th { white-space: normal; vertical-align: bottom; }
th.label, td.label, th.text, td.text { text-align: left; }
td.label { white-space: normal; }
td.text { white-space: normal; min-width: 14em; max-width: 40em; }
td .sd { display: block; font-size: 11px; font-weight: 400; color: var(--muted); }
thead th { background: #f3f5f9; cursor: pointer; user-select: none; }
/* The first column (the algorithm) stays in view while the table scrolls sideways. */
table.sortable tr > :first-child { position: sticky; left: 0; z-index: 1; background: #fff; box-shadow: inset -1px 0 0 var(--line); }
table.sortable thead tr > :first-child { background: #f3f5f9; z-index: 2; }
table.sortable tr.ref > :first-child { background: var(--ref); }
.notice { background: #fff4e5; border-left: 4px solid #f0a030; padding: 4px 10px; margin: 4px 0 6px; font-size: 13px; }
thead th[aria-sort="ascending"]::after { content: " ▲"; font-size: 10px; }
thead th[aria-sort="descending"]::after { content: " ▼"; font-size: 10px; }
tr.ref td { background: var(--ref); font-style: italic; color: #5a4b1a; }
td.best { font-weight: 700; color: var(--best); }
td.flagged { background: #fde8e8; }
.badge { display: inline-block; font-size: 11px; padding: 0 6px; border-radius: 8px; background: #e8d9a8; color: #5a4b1a; font-style: normal; }
.note { color: var(--muted); font-size: 12px; margin: 2px 0; }
.warn { background: #fff4e5; border-left: 4px solid #f0a030; padding: 6px 10px; }
img.plot { max-width: 100%; border: 1px solid var(--line); margin: 6px 0; }
.samples { display: grid; gap: 10px; }
.sample { border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; }
.sample .prompt { color: var(--muted); white-space: pre-wrap; }
.gens { display: grid; grid-template-columns: repeat(auto-fit, minmax(220px, 1fr)); gap: 8px; margin-top: 6px; }
.gen { background: #f7f9fc; border-radius: 4px; padding: 6px 8px; white-space: pre-wrap; }
.gen b { display: block; font-size: 12px; margin-bottom: 2px; }
.gen .scores { color: var(--muted); font-size: 11px; margin-top: 4px; }
code { background: #f0f2f6; padding: 0 3px; border-radius: 3px; }
"""

JS = """
(function () {
  function key(cell) {
    var raw = cell.getAttribute('data-sort');
    return raw === null ? cell.textContent.trim() : raw;
  }
  function compare(a, b) {
    var x = parseFloat(a), y = parseFloat(b);
    var numeric = a !== '' && b !== '' && !isNaN(x) && !isNaN(y) && isFinite(a) && isFinite(b);
    if (numeric) { return x - y; }
    if (a === '' && b !== '') { return 1; }
    if (b === '' && a !== '') { return -1; }
    return a.localeCompare(b);
  }
  function sortBy(table, index, header) {
    var body = table.tBodies[0];
    var descending = header.getAttribute('aria-sort') === 'ascending';
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (r1, r2) {
      var order = compare(key(r1.cells[index]), key(r2.cells[index]));
      return descending ? -order : order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) { th.removeAttribute('aria-sort'); });
    header.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
  }
  document.addEventListener('DOMContentLoaded', function () {
    Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
        th.title = 'click to sort';
        th.addEventListener('click', function () { sortBy(table, index, th); });
      });
    });
  });
})();
"""
