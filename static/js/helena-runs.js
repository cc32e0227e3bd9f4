/* "Meine Aufträge": follow the active runs live (progress, status) over the chat websocket. */
(function () {
  "use strict";

  var QUEUE_POLL_MS = 5000;

  function queueText(position) {
    return "Platz " + position + " in der Warteschlange";
  }

  /* Waiting background runs: their place in the queue, asked from the runs API until none waits. */
  function followQueue() {
    if (!document.querySelector(".queue-position")) return;
    window.setTimeout(function () {
      fetch("/api/auftraege/?limit=200", { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (page) {
          if (!page) return;
          var positions = {};
          page.results.forEach(function (run) { positions[run.id] = run.queue_position; });
          document.querySelectorAll(".queue-position").forEach(function (span) {
            var position = positions[span.closest("tr").dataset.run];
            if (position) span.textContent = queueText(position);
            else span.remove();
          });
        })
        .catch(function () { /* the next round tries again */ })
        .then(followQueue);
    }, QUEUE_POLL_MS);
  }

  document.addEventListener("DOMContentLoaded", function () {
    followQueue();
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
