"use strict";
// The report's interactions: a run's name, team and ranks on hover and focus of its marks,
// tables sorted by a click on a column, and the runs of a picked team highlighted everywhere.
(function () {
  const tip = document.getElementById("tip");

  // Shows the tip of `spot`: beside the pointer when there is one, else above the mark.
  function showTip(spot, pointer) {
    tip.textContent = spot.dataset.tip;
    tip.hidden = false;
    const box = spot.getBoundingClientRect();
    const x = pointer ? pointer.clientX + 14 : box.left + box.width / 2 - tip.offsetWidth / 2;
    tip.style.left = Math.max(8, Math.min(window.innerWidth - tip.offsetWidth - 8, x)) + "px";
    const above = (pointer ? pointer.clientY : box.top) - tip.offsetHeight - 8;
    tip.style.top = (above > 0 ? above : (pointer ? pointer.clientY : box.bottom) + 16) + "px";
  }

  function hideTip() {
    tip.hidden = true;
  }

  document.addEventListener("mousemove", (event) => {
    const spot = event.target.closest(".spot");
    if (spot) showTip(spot, event);
  });
  document.addEventListener("mouseout", (event) => {
    if (event.target.closest(".spot")) hideTip();
  });
  document.addEventListener("focusin", (event) => {
    const spot = event.target.closest(".spot");
    if (spot) showTip(spot);
  });
  document.addEventListener("focusout", hideTip);

  const picker = document.getElementById("team-pick");
  if (picker) {
    picker.addEventListener("change", () => {
      const team = picker.value;
      for (const marked of document.querySelectorAll("[data-team]")) {
        marked.classList.toggle("picked", team !== "" && marked.dataset.team === team);
      }
    });
  }

  function sortKey(cell) {
    const number = parseFloat(cell.textContent);
    return Number.isNaN(number) ? null : number;
  }

  function compareCells(a, b) {
    const x = sortKey(a);
    const y = sortKey(b);
    if (x !== null && y !== null) return x - y;
    if (x !== null) return -1;
    if (y !== null) return 1;
    return a.textContent.localeCompare(b.textContent);
  }

  function sortTable(table, column, header) {
    const ascending = header.getAttribute("aria-sort") !== "ascending";
    for (const other of table.querySelectorAll("th")) other.removeAttribute("aria-sort");
    header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    const body = table.tBodies[0];
    const rows = Array.from(body.rows);
    rows.sort((a, b) => {
      const order = compareCells(a.cells[column], b.cells[column]);
      return ascending ? order : -order;
    });
    for (const row of rows) body.appendChild(row);
  }

  for (const table of document.querySelectorAll("table.sortable")) {
    table.querySelectorAll("th").forEach((header, column) => {
      header.querySelector("button").addEventListener("click", () => {
        sortTable(table, column, header);
      });
    });
  }
})();
