/* Drag-and-drop upload on the Akte page and in the chat (to the chat's chosen Akte): POST
   /api/dokumente/ per file, then the extraction status (or the German error) next to the file.
   No inline scripts (CSP). */
(function () {
  "use strict";

  var STATUS = {
    OK: "Text erkannt", AUSSTEHEND: "Texterkennung läuft", FEHLER: "Texterkennung fehlgeschlagen",
    BILD: "Bild gespeichert (ohne Texterkennung)",
  };

  function csrfToken(form) {
    var input = form.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function line(list, text, warn) {
    var li = document.createElement("li");
    li.textContent = text;
    if (warn) li.className = "warn";
    list.appendChild(li);
    return li;
  }

  function message(data, status) {
    if (data && data.datei) return [].concat(data.datei).join(" ");
    if (data && data.detail) return String(data.detail);
    return "Das Hochladen ist fehlgeschlagen (" + status + ").";
  }

  function akteOf(form) {
    if (form.dataset.akte) return form.dataset.akte;
    var select = document.getElementById(form.dataset.akteSelect || "");
    return select ? select.value : "";
  }

  function upload(form, list, file) {
    var akte = akteOf(form);
    if (!akte) {
      line(list, file.name + ": Bitte wähle zuerst oben eine Akte aus.", true);
      return Promise.resolve();
    }
    var li = line(list, file.name + ": wird hochgeladen …");
    var body = new FormData();
    body.append("akte", akte);
    body.append("datei", file, file.name);
    return fetch(form.dataset.url, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken(form), Accept: "application/json" },
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (data) {
        if (!response.ok) {
          li.textContent = file.name + ": " + message(data, response.status);
          li.className = "warn";
          return;
        }
        var text = file.name + ": hochgeladen – " + (STATUS[data.text_status] || data.text_status);
        if (data.text_status === "FEHLER" && data.text_fehler) text += " (" + data.text_fehler + ")";
        li.textContent = text;
        li.className = data.text_status === "FEHLER" ? "warn" : "ok";
        li.dataset.dokument = data.id;
      });
    }).catch(function () {
      li.textContent = file.name + ": Keine Verbindung zum Server. Bitte versuche es erneut.";
      li.className = "warn";
    });
  }

  function uploadAll(form, list, files) {
    Array.prototype.reduce.call(files, function (chain, file) {
      return chain.then(function () { return upload(form, list, file); });
    }, Promise.resolve()).then(function () {
      // On the Akte page its Dokumente list (and Verlauf) show the new files without a reload.
      if (form.dataset.akte && window.HelenaCards && window.HelenaCards.refreshAkteLists) {
        window.HelenaCards.refreshAkteLists(document.getElementById("akte-live"));
      }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("upload-form");
    var list = document.getElementById("upload-status");
    if (!form || !list) return;
    var input = form.querySelector("input[type=file]");
    input.addEventListener("change", function () {
      uploadAll(form, list, input.files);
      input.value = "";
    });
    ["dragenter", "dragover"].forEach(function (name) {
      form.addEventListener(name, function (event) {
        event.preventDefault();
        form.classList.add("dragover");
      });
    });
    ["dragleave", "drop"].forEach(function (name) {
      form.addEventListener(name, function (event) {
        event.preventDefault();
        form.classList.remove("dragover");
      });
    });
    form.addEventListener("drop", function (event) {
      if (event.dataTransfer && event.dataTransfer.files.length) uploadAll(form, list, event.dataTransfer.files);
    });
    form.addEventListener("submit", function (event) { event.preventDefault(); });
  });
})();
