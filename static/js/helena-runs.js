/* "Meine Aufträge": follow the active runs live (progress, status) over the chat websocket. */
(function () {
  "use strict";

  document.addEventListener("DOMContentLoaded", function () {
    var data = document.getElementById("active-runs");
    if (!data) return;
    var active = JSON.parse(data.textContent);
    if (!active.length) return;
    var live = document.getElementById("runs-live");
    var lastSeq = {};
    var connection = window.Helena.connect({
      reconnect: false,
      open: function () {
        live.textContent = "Live-Aktualisierung aktiv.";
        active.forEach(function (id) { connection.send({ type: "run.resume", run: id, after_seq: 0 }); });
      },
      close: function () { live.textContent = "Live-Aktualisierung unterbrochen – bitte Seite neu laden."; },
      message: function (event) {
        var row = document.querySelector('tr[data-run="' + event.run + '"]');
        if (!row || event.seq === undefined || event.seq <= (lastSeq[event.run] || 0)) return;
        lastSeq[event.run] = event.seq;
        if (event.type === "step.started") {
          row.querySelector("progress").value = event.step;
          row.querySelector("progress").max = event.max_steps;
          row.querySelector(".progress-text").textContent = event.step + "/" + event.max_steps + " Schritte";
          row.querySelector(".run-status").textContent = "läuft – " + (event.label || "");
        } else if (window.Helena.isTerminal(event.type)) {
          var label = window.Helena.statusLabel(event.status);
          row.querySelector(".run-status").textContent = label;
          var bar = row.querySelector("progress");
          if (bar) bar.remove();
          row.querySelector(".progress-text").textContent = event.status === "CANCELLED" ? "abgebrochen" : "beendet";
          var cancel = row.querySelector(".cancel-run");
          if (cancel) cancel.closest("form").remove();
          live.textContent = "Auftrag " + event.run + ": " + label + ".";
        }
      },
    });
  });
})();
