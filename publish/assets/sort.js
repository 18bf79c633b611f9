/* arena publish: click a column header of a table.sortable to sort by it (again to reverse).
   A cell's data-sort attribute, when present, is the value sorted by (numbers compare as
   numbers); rows with equal values keep their previous order. */
(function () {
  "use strict";
  function key(cell) {
    var raw = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent;
    var num = parseFloat(raw);
    return { num: raw.trim() !== "" && isFinite(raw) ? num : NaN, text: raw.trim().toLowerCase() };
  }
  function compare(a, b) {
    if (!isNaN(a.num) && !isNaN(b.num)) return a.num - b.num;
    if (!isNaN(a.num)) return -1;
    if (!isNaN(b.num)) return 1;
    return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
  }
  function sortBy(table, th) {
    var headers = Array.prototype.slice.call(th.parentNode.children);
    var col = headers.indexOf(th);
    var current = th.getAttribute("aria-sort");
    var first = th.getAttribute("data-first") || "ascending";
    var dir = current === "ascending" ? "descending" : current === "descending" ? "ascending" : first;
    headers.forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir);
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows).map(function (row, i) {
      return { row: row, key: key(row.cells[col]), i: i };
    });
    rows.sort(function (a, b) {
      var c = compare(a.key, b.key);
      if (dir === "descending") c = -c;
      return c || a.i - b.i;
    });
    rows.forEach(function (r) { body.appendChild(r.row); });
  }
  function init() {
    var tables = document.querySelectorAll("table.sortable");
    Array.prototype.forEach.call(tables, function (table) {
      var ths = table.tHead ? table.tHead.rows[0].cells : [];
      Array.prototype.forEach.call(ths, function (th) {
        th.setAttribute("tabindex", "0");
        th.setAttribute("title", "Sort by " + th.textContent.trim());
        th.addEventListener("click", function () { sortBy(table, th); });
        th.addEventListener("keydown", function (e) {
          if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, th); }
        });
      });
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
