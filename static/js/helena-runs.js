/* "Meine Aufträge": follow the active runs live (progress, status) over the chat websocket. */
(function () {
  "use strict";
  var LABEL = { "run.finished": "fertig", "run.failed": "fehlgeschlagen", "run.cancelled": "abgebrochen" };

  document.addEventListener("DOMContentLoaded", function () {
    var data = document.getElementById("active-runs");
    if (!data) return;
    var active = JSON.parse(data.textContent);
    if (!active.length) return;
    var live = document.getElementById("runs-live");
    var lastSeq = {};
    var proto = window.location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(proto + window.location.host + "/ws/helena/");
    socket.addEventListener("open", function () {
      live.textContent = "Live-Aktualisierung aktiv.";
      active.forEach(function (id) { socket.send(JSON.stringify({ type: "run.resume", run: id, after_seq: 0 })); });
    });
    socket.addEventListener("close", function () { live.textContent = "Live-Aktualisierung unterbrochen – bitte Seite neu laden."; });
    socket.addEventListener("message", function (raw) {
      var event = JSON.parse(raw.data);
      var row = document.querySelector('tr[data-run="' + event.run + '"]');
      if (!row || event.seq === undefined || event.seq <= (lastSeq[event.run] || 0)) return;
      lastSeq[event.run] = event.seq;
      if (event.type === "step.started") {
        row.querySelector("progress").value = event.step;
        row.querySelector("progress").max = event.max_steps;
        row.querySelector(".progress-text").textContent = event.step + "/" + event.max_steps + " Schritte";
        row.querySelector(".run-status").textContent = "läuft – " + (event.label || "");
      } else if (LABEL[event.type]) {
        row.querySelector(".run-status").textContent = LABEL[event.type];
        var cancel = row.querySelector(".cancel-run");
        if (cancel) cancel.closest("form").remove();
        live.textContent = "Auftrag " + event.run + ": " + LABEL[event.type] + ".";
      }
    });
  });
})();
