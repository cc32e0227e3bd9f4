/* The navigation counter of unread notifications, refreshed from the server while the tab is
   visible, and (if the user switched them on) a browser notification for each new one. The
   server decides what the user may see; this script only shows the count and the texts. */
(function () {
  "use strict";

  var INTERVAL_MS = 15000;
  var lastCount = null;

  function update(link, data) {
    var badge = document.getElementById("notify-count");
    if (!badge) return;
    badge.querySelector(".notify-number").textContent = String(data.count) + (data.mehr ? "+" : "");
    badge.hidden = data.count === 0;
    if (lastCount !== null && data.count > lastCount && window.Notification && Notification.permission === "granted" && localStorage.getItem("helena-browser-notify") === "1") {
      data.latest.slice(0, data.count - lastCount).forEach(function (item) {
        var note = new Notification("Helena", { body: item.text, tag: item.url + item.when });
        note.onclick = function () { window.focus(); window.location.href = item.url; };
      });
    }
    lastCount = data.count;
  }

  function poll(link) {
    if (document.hidden) return;
    window.fetch(link.dataset.countUrl, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (data) { if (data) update(link, data); })
      .catch(function () { /* offline: try again next time */ });
  }

  function browserSwitch() {
    var box = document.querySelector(".browser-notify");
    if (!box || !window.Notification) return;
    var button = document.getElementById("browser-notify-on");
    var state = document.getElementById("browser-notify-state");
    box.hidden = false;
    function show() {
      var on = Notification.permission === "granted" && localStorage.getItem("helena-browser-notify") === "1";
      button.textContent = on ? "Browser-Benachrichtigungen ausschalten" : "Browser-Benachrichtigungen einschalten";
      state.textContent = Notification.permission === "denied" ? "Dein Browser blockiert Benachrichtigungen für diese Seite." : on ? "Eingeschaltet." : "";
    }
    button.addEventListener("click", function () {
      if (localStorage.getItem("helena-browser-notify") === "1") {
        localStorage.removeItem("helena-browser-notify");
        show();
        return;
      }
      Notification.requestPermission().then(function (permission) {
        if (permission === "granted") localStorage.setItem("helena-browser-notify", "1");
        show();
      });
    });
    show();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var link = document.getElementById("notify-link");
    browserSwitch();
    if (!link) return;
    lastCount = Number(link.querySelector(".notify-number").textContent) || 0;
    window.setInterval(function () { poll(link); }, INTERVAL_MS);
    document.addEventListener("visibilitychange", function () { poll(link); });
  });
})();
