/* Cited norms open in a side panel next to the chat: the text with its Absatz anchors and the
   Stand, fetched from the server (/recherche/normen/<id>/panel/). A click with a modifier key, or
   without JavaScript, opens the norm reader instead. */
(function () {
  "use strict";
  var panel = null;
  var opener = null;

  function close() {
    if (!panel) return;
    panel.hidden = true;
    if (opener) opener.focus();
  }

  function ensurePanel() {
    if (panel) return panel;
    panel = document.createElement("aside");
    panel.id = "norm-panel";
    panel.className = "card side-panel";
    panel.setAttribute("aria-label", "Norm");
    panel.hidden = true;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "side-panel-close";
    button.textContent = "Schließen";
    button.addEventListener("click", close);
    var body = document.createElement("div");
    body.className = "side-panel-body";
    body.setAttribute("aria-live", "polite");
    panel.appendChild(button);
    panel.appendChild(body);
    document.body.appendChild(panel);
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && !panel.hidden) close();
    });
    return panel;
  }

  function show(link) {
    var url = link.getAttribute("data-norm-panel");
    var anchor = (link.getAttribute("href") || "").split("#")[1] || "";
    var box = ensurePanel();
    var body = box.querySelector(".side-panel-body");
    body.textContent = "Lade die Vorschrift …";
    box.hidden = false;
    opener = link;
    fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (response) {
        if (!response.ok) throw new Error(String(response.status));
        return response.text();
      })
      .then(function (html) {
        body.innerHTML = html; // our own server-rendered, escaped fragment
        var target = anchor ? body.querySelector('[id="' + anchor.replace(/"/g, "") + '"]') : null;
        var heading = body.querySelector("h2");
        if (target) {
          target.classList.add("highlight");
          target.scrollIntoView({ block: "nearest" });
        }
        if (heading) {
          heading.setAttribute("tabindex", "-1");
          heading.focus();
        }
      })
      .catch(function () {
        body.textContent = "Die Vorschrift konnte nicht geladen werden. ";
        var direct = document.createElement("a");
        direct.href = link.getAttribute("href");
        direct.textContent = "Im Normenleser öffnen";
        body.appendChild(direct);
      });
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a[data-norm-panel]") : null;
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    show(link);
  });
})();
