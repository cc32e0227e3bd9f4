/* Helena's draft cards: one renderer for the chat and the Akte page. Every action goes through the
   drafts API (accept / edit / reject / undo), the only path from a proposal to a record.
   Plain DOM, no innerHTML except the server-sanitised `preview_html` of a document draft. */
(function () {
  "use strict";

  var REJECT_CATEGORIES = [
    ["INHALTLICH_FALSCH", "inhaltlich falsch"],
    ["UNVOLLSTAENDIG", "unvollständig"],
    ["TON_STIL", "Ton/Stil"],
    ["FORMATIERUNG", "Formatierung"],
    ["SONSTIGES", "sonstiges"],
  ];
  var KALENDER_TYP = { FRIST: "Frist", TERMIN: "Termin", WIEDERVORLAGE: "Wiedervorlage" };
  // whom a letter goes to (schriftgut.services.EMPFAENGER)
  var EMPFAENGER = { MANDANT: " · an die Mandantschaft", GEGENSEITE: " · an die Gegenseite (bei Vertretung an ihren Anwalt)" };
  var FIELD_LABELS = {
    titel: "Titel", typ: "Art", datum: "Datum", uhrzeit: "Uhrzeit", fristablauf: "Fristablauf",
    vorfrist: "Vorfrist", notfrist: "Notfrist", beschreibung: "Beschreibung", minuten: "Minuten",
    abrechenbar: "abrechenbar", stundensatz: "Stundensatz", text: "Text", inhalt_markdown: "Inhalt (Markdown)",
    mandant_sichtbar: "für Mandant sichtbar", begruendung: "Begründung", verantwortlich_id: "verantwortlich",
  };
  var cards = {};

  var el = window.Helena.el;

  function germanDate(value) {
    if (!value) return "–";
    var m = /^(\d{4})-(\d{2})-(\d{2})/.exec(String(value));
    return m ? m[3] + "." + m[2] + "." + m[1] : String(value);
  }

  function csrfToken() {
    var m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return m ? decodeURIComponent(m[1]) : "";
  }

  function api(method, url, body) {
    return fetch(url, {
      method: method,
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken(), Accept: "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (!response.ok) {
          var detail = data && (data.detail || data.payload || data.reason || data.categories);
          throw new Error(typeof detail === "string" ? detail : "Die Aktion ist fehlgeschlagen (" + response.status + ").");
        }
        return data;
      });
    });
  }

  function resultUrl(card) {
    if (card.result_url) return card.result_url;
    if (!card.result) return "";
    if (card.result.type === "dokument") return "/api/dokumente/" + card.result.id + "/download/";
    var anchors = { kalendereintrag: "#kal-h", zeiterfassung: "#zeit-h", notiz: "#not-h" };
    return card.akte ? "/akten/" + card.akte + "/" + (anchors[card.result.type] || "") : "";
  }

  function facts(rows) {
    var dl = el("dl", { className: "facts" });
    rows.forEach(function (row) {
      if (row[1] === undefined || row[1] === null || row[1] === "") return;
      dl.appendChild(el("dt", { text: row[0] }));
      dl.appendChild(el("dd", { text: String(row[1]) }));
    });
    return dl;
  }

  function downloads(card) {
    var base = "/api/drafts/" + card.id + "/datei/";
    return el("p", { className: "downloads" }, [
      el("a", { href: base + "docx/", download: "", text: "Als Word herunterladen" }), " · ",
      el("a", { href: base + "pdf/", download: "", text: "Als PDF herunterladen" }),
    ]);
  }

  function missing(p) {
    var fields = p.fehlende_felder || [];
    if (!fields.length) return null;
    return el("div", { className: "missing-fields", role: "note" }, [
      el("p", { text: "In der Akte fehlen Angaben; sie stehen im Dokument als „[fehlt: …]“:" }),
      el("ul", {}, fields.map(function (f) { return el("li", { text: f }); })),
    ]);
  }

  function unresolvedCitations(card) {
    var open = card.zitate_offen || [];
    if (!open.length) return null;
    return el("div", { className: "missing-fields citations-open", role: "note" }, [
      el("p", { text: "Zitate nicht im Bestand – bitte prüfen:" }),
      el("ul", {}, open.map(function (z) { return el("li", { text: z.zitiert + ": " + z.grund }); })),
    ]);
  }

  function euro(value) {
    var n = Number(value);
    return isNaN(n) ? String(value) : n.toLocaleString("de-DE", { minimumFractionDigits: 2, maximumFractionDigits: 2 }) + " €";
  }

  function kostennote(p) {
    var rows = [].concat(p.positionen || [], p.anrechnungen || [], p.auslagen || []).map(function (pos) {
      return el("tr", {}, [el("td", { text: pos.vv }), el("td", { text: pos.bezeichnung }), el("td", { className: "betrag", text: euro(pos.betrag) })]);
    });
    rows.push(el("tr", {}, [el("th", { scope: "row", colspan: "2", text: "netto" }), el("td", { className: "betrag", text: euro(p.netto) })]));
    rows.push(el("tr", {}, [el("th", { scope: "row", colspan: "2", text: "Umsatzsteuer" }), el("td", { className: "betrag", text: euro(p.ust) })]));
    rows.push(el("tr", {}, [el("th", { scope: "row", colspan: "2", text: "Gesamt" }), el("td", { className: "betrag", text: euro(p.brutto) })]));
    return el("div", {}, [
      facts([["Art", p.art === "VORSCHUSS" ? "Vorschussrechnung (§ 9 RVG)" : "Kostennote (§ 10 RVG)"],
        ["Gegenstandswert", euro(p.gegenstandswert)],
        ["Leistungszeitraum", germanDate(p.leistungszeitraum_von) + " bis " + germanDate(p.leistungszeitraum_bis)],
        ["Rechnungsnummer", "wird bei der Übernahme vergeben"]]),
      el("table", { className: "rechnung" }, [el("tbody", {}, rows)]),
    ]);
  }

  function personName(card, id) {
    if (id === null || id === undefined || id === "") return "";
    var match = (card.people || []).filter(function (person) { return person.id === id; })[0];
    return match ? match.name : "";
  }

  function body(card) {
    if (card.inhalt_verborgen) {
      return el("p", { className: "note-text muted", role: "note", text: card.hinweis_verborgen || "" });
    }
    var p = card.payload || {};
    if (card.typ === "DOKUMENT") {
      var preview = el("div", { className: "doc-preview", "aria-label": "Vorschau des Dokuments" });
      preview.innerHTML = card.preview_html || ""; // sanitised by nh3 on the server
      return el("div", {}, [
        p.vorlage ? el("p", { className: "muted", text: "Vorlage: " + p.vorlage.name + (EMPFAENGER[p.vorlage.empfaenger] || "") }) : null,
        missing(p), preview, downloads(card),
      ]);
    }
    if (card.typ === "KOSTENNOTE") {
      return el("div", {}, [kostennote(p), downloads(card)]);
    }
    if (card.typ === "FRIST") {
      return facts([
        ["Art", KALENDER_TYP[p.typ] || p.typ],
        ["Datum", germanDate(p.datum) + (p.uhrzeit ? ", " + String(p.uhrzeit).slice(0, 5) + " Uhr" : "")],
        ["Fristablauf", p.fristablauf ? germanDate(p.fristablauf) : ""],
        ["Vorfrist", p.vorfrist ? germanDate(p.vorfrist) : ""],
        ["Notfrist", p.notfrist ? "ja" : ""],
        ["verantwortlich", personName(card, p.verantwortlich_id)],
        ["Beschreibung", p.beschreibung],
      ]);
    }
    if (card.typ === "ZEITERFASSUNG") {
      return facts([
        ["Datum", germanDate(p.datum)], ["Dauer", p.minuten + " Minuten"], ["Tätigkeit", p.beschreibung],
        ["abrechenbar", p.abrechenbar === false ? "nein" : "ja"], ["Stundensatz", p.stundensatz ? p.stundensatz + " EUR" : ""],
      ]);
    }
    if (card.typ === "AKTE_UPDATE") {
      var table = el("table", { className: "diff" }, [
        el("caption", { className: "visually-hidden", text: "Änderungen an der Akte" }),
        el("thead", {}, [el("tr", {}, [el("th", { text: "Feld" }), el("th", { text: "bisher" }), el("th", { text: "neu" })])]),
      ]);
      var tbody = el("tbody");
      (card.diff || []).forEach(function (d) {
        tbody.appendChild(el("tr", {}, [el("td", { text: d.field }), el("td", {}, [el("del", { text: d.before })]), el("td", {}, [el("ins", { text: d.after })])]));
      });
      table.appendChild(tbody);
      var wrap = el("div", {}, [table]);
      if (p.begruendung) wrap.appendChild(el("p", { text: "Begründung: " + p.begruendung }));
      return wrap;
    }
    return el("p", { className: "note-text", text: p.text || "" });
  }

  // What the RVG calculator computed for a Kostennote stays as it is (drafts.services.RECHNER_FELDER).
  var FIXED_FIELDS = {
    KOSTENNOTE: ["gegenstandswert", "auftragsdatum", "tabelle", "netto", "ust_satz", "ust", "brutto"],
  };

  function editableFields(card) {
    var p = card.typ === "AKTE_UPDATE" ? (card.payload.changes || {}) : card.payload || {};
    var fixed = FIXED_FIELDS[card.typ] || [];
    return Object.keys(p).filter(function (key) {
      if (fixed.indexOf(key) >= 0) return false;
      var value = p[key];
      return value === null || ["string", "number", "boolean"].indexOf(typeof value) >= 0;
    }).map(function (key) { return [key, p[key]]; });
  }

  function editForm(card, root) {
    var form = el("form", { className: "edit-form", hidden: "" });
    var fields = editableFields(card);
    fields.forEach(function (field) {
      var key = field[0], value = field[1];
      var id = "edit-" + card.id + "-" + key;
      var input;
      if (key === "verantwortlich_id") {
        input = el("select", { id: id, name: key }, [el("option", { value: "", text: "– niemand –" })]);
        (card.people || []).forEach(function (person) {
          var option = el("option", { value: String(person.id), text: person.name });
          if (person.id === value) option.selected = true;
          input.appendChild(option);
        });
        input.dataset.kind = "number";
        form.appendChild(el("label", { for: id, text: FIELD_LABELS[key] }));
        form.appendChild(input);
        return;
      } else if (typeof value === "boolean") {
        input = el("input", { type: "checkbox", id: id, name: key });
        input.checked = value;
      } else if (key === "inhalt_markdown" || key === "text" || key === "beschreibung" || key === "zusammenfassung") {
        input = el("textarea", { id: id, name: key, rows: key === "inhalt_markdown" ? "10" : "3" });
        input.value = value === null ? "" : String(value);
      } else {
        var type = /datum|fristablauf|vorfrist/.test(key) ? "date" : typeof value === "number" ? "number" : "text";
        input = el("input", { type: type, id: id, name: key });
        input.value = value === null ? "" : String(value);
      }
      input.dataset.kind = typeof value;
      form.appendChild(el("label", { for: id, text: (FIELD_LABELS[key] || key) }));
      form.appendChild(input);
    });
    form.appendChild(el("button", { type: "submit", className: "primary", text: "Änderungen speichern" }));
    form.appendChild(el("button", { type: "button", className: "cancel-edit", text: "Abbrechen" }));
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var changed = {};
      Array.prototype.forEach.call(form.querySelectorAll("input, textarea, select"), function (input) {
        var kind = input.dataset.kind;
        if (kind === "boolean") changed[input.name] = input.checked;
        else if (kind === "number") changed[input.name] = input.value === "" ? null : Number(input.value);
        else changed[input.name] = input.value === "" && kind === "object" ? null : input.value;
      });
      var payload = card.typ === "AKTE_UPDATE"
        ? Object.assign({}, card.payload, { changes: Object.assign({}, card.payload.changes, changed) })
        : Object.assign({}, card.payload, changed);
      act(root, "PATCH", "/api/drafts/" + card.id + "/", { payload: payload }, "Die Änderungen sind gespeichert.");
    });
    form.querySelector(".cancel-edit").addEventListener("click", function () {
      form.hidden = true;
      root.querySelector(".act-edit").focus();
    });
    return form;
  }

  function rejectForm(card, root) {
    var form = el("form", { className: "reject-form", hidden: "" });
    var fieldset = el("fieldset", {}, [el("legend", { text: "Warum lehnst du ab?" })]);
    REJECT_CATEGORIES.forEach(function (cat) {
      var id = "rej-" + card.id + "-" + cat[0];
      fieldset.appendChild(el("label", { className: "inline-choice", for: id }, [
        el("input", { type: "checkbox", id: id, name: "categories", value: cat[0] }), " " + cat[1],
      ]));
    });
    form.appendChild(fieldset);
    var reasonId = "rej-" + card.id + "-reason";
    form.appendChild(el("label", { for: reasonId, text: "Begründung (hilft Helena beim nächsten Mal)" }));
    form.appendChild(el("textarea", { id: reasonId, name: "reason", rows: "2", maxlength: "2000" }));
    form.appendChild(el("button", { type: "submit", className: "primary", text: "Ablehnung senden" }));
    form.appendChild(el("button", { type: "button", className: "cancel-reject", text: "Abbrechen" }));
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var categories = Array.prototype.map.call(form.querySelectorAll("input[name=categories]:checked"), function (i) { return i.value; });
      var reason = form.querySelector("textarea").value.trim();
      if (!categories.length && !reason) {
        message(root, "Bitte wähle einen Grund oder schreib eine Begründung.", true);
        return;
      }
      act(root, "POST", "/api/drafts/" + card.id + "/reject/", { categories: categories, reason: reason }, "Der Entwurf ist abgelehnt.");
    });
    form.querySelector(".cancel-reject").addEventListener("click", function () {
      form.hidden = true;
      root.querySelector(".act-reject").focus();
    });
    return form;
  }

  function message(root, text, isError) {
    var box = root.querySelector(".card-message");
    box.textContent = text;
    box.className = "card-message " + (isError ? "error" : "ok");
  }

  function act(root, method, url, bodyData, success) {
    var card = cards[root.dataset.draft];
    // asked before the buttons are disabled: a disabled button loses the focus to <body>
    var hadFocus = root.contains(document.activeElement);
    Array.prototype.forEach.call(root.querySelectorAll("button"), function (b) { b.disabled = true; });
    return api(method, url, bodyData).then(function (data) {
      update(Object.assign({}, card, data, { result_url: "" }));
      var fresh = document.querySelector('[data-draft="' + card.id + '"]');
      message(fresh, success, false);
      if (hadFocus && fresh) {
        // the keyboard stays on the card: its next action ("Rückgängig"), else the card itself
        var next = fresh.querySelector("button:not([disabled])");
        (next || fresh).focus();
      }
    }).catch(function (error) {
      Array.prototype.forEach.call(root.querySelectorAll("button"), function (b) { b.disabled = false; });
      message(root, error.message, true);
    });
  }

  function render(card) {
    cards[card.id] = card;
    var titleId = "draft-" + card.id + "-title";
    var root = el("article", { className: "draft-card status-" + card.status.toLowerCase(), "data-draft": card.id, "aria-labelledby": titleId, tabindex: "-1" });
    var head = el("header", { className: "draft-head" }, [
      el("span", { className: "badge", text: card.typ_label }),
      el("h3", { id: titleId, text: card.titel }),
      el("span", { className: "badge draft-status", text: "Status: " + card.status_label }),
    ]);
    if (card.aktenzeichen && card.akte_url) head.appendChild(el("a", { href: card.akte_url, text: "Akte " + card.aktenzeichen }));
    if (card.untrusted) {
      head.appendChild(el("span", {
        className: "badge warn untrusted",
        title: "Helena hat vorher Dokument-, Urteils- oder Suchtexte gelesen, die Anweisungen enthalten könnten. Bitte besonders sorgfältig prüfen.",
      }, [window.Helena.icon("warning"), " nach Lesen ungeprüfter Texte"]));
    }
    root.appendChild(head);
    root.appendChild(body(card));
    var citations = unresolvedCitations(card);
    if (citations) root.appendChild(citations);
    if (card.hinweis && card.status === "PENDING") {
      root.appendChild(el("p", { className: "missing-fields draft-hinweis", role: "note", text: card.hinweis }));
    }
    if (card.status === "PENDING" && card.inhalt_verborgen) {
      root.appendChild(el("p", { className: "draft-result muted", text: "Wartet auf Prüfung durch jemanden, der alle dafür gelesenen Akten sehen darf." }));
    } else if (card.status === "PENDING" && !card.can_review) {
      root.appendChild(el("p", { className: "draft-result muted", text: "Wartet auf Prüfung durch eine Anwältin, einen Anwalt oder die Sachbearbeitung." }));
    } else if (card.status === "PENDING") {
      var actions = el("div", { className: "draft-actions" }, [
        el("button", { type: "button", className: "primary act-accept", text: "Übernehmen" }),
        el("button", { type: "button", className: "act-edit", text: "Bearbeiten" }),
        el("button", { type: "button", className: "act-reject", text: "Ablehnen" }),
      ]);
      root.appendChild(actions);
      var edit = editForm(card, root);
      var reject = rejectForm(card, root);
      root.appendChild(edit);
      root.appendChild(reject);
      actions.querySelector(".act-accept").addEventListener("click", function () {
        act(root, "POST", "/api/drafts/" + card.id + "/accept/", { version: card.version }, "Übernommen.");
      });
      actions.querySelector(".act-edit").addEventListener("click", function () {
        reject.hidden = true;
        edit.hidden = false;
        var first = edit.querySelector("input, textarea");
        if (first) first.focus();
      });
      actions.querySelector(".act-reject").addEventListener("click", function () {
        edit.hidden = true;
        reject.hidden = false;
        reject.querySelector("input").focus();
      });
    } else if (card.status === "ACCEPTED") {
      var done = el("p", { className: "draft-result" }, [window.Helena.icon("check"), " Übernommen. "]);
      var url = resultUrl(card);
      if (url) done.appendChild(el("a", { href: url, text: card.typ === "DOKUMENT" ? "Dokument öffnen" : "Zum Eintrag in der Akte" }));
      root.appendChild(done);
      var reviewed = card.reviewed_at ? Date.parse(card.reviewed_at) : 0;
      var left = reviewed ? reviewed + (card.undo_seconds || 0) * 1000 - Date.now() : 0;
      if (left > 0 && card.can_review) {
        var undo = el("button", { type: "button", className: "act-undo", text: "Rückgängig" });
        undo.addEventListener("click", function () {
          act(root, "POST", "/api/drafts/" + card.id + "/undo/", undefined, "Rückgängig gemacht – der Entwurf ist wieder offen.");
        });
        root.appendChild(undo);
        window.setTimeout(function () { if (undo.isConnected) undo.remove(); }, left);
      }
    } else if (card.status === "REJECTED") {
      root.appendChild(el("p", { className: "draft-result" }, [window.Helena.icon("cross"), " Abgelehnt" + (card.rejection_reason ? ": " + card.rejection_reason : ".")]));
    }
    root.appendChild(el("p", { className: "card-message", role: "status" }));
    return root;
  }

  function update(card) {
    var merged = Object.assign({}, cards[card.id] || {}, card);
    var existing = document.querySelectorAll('[data-draft="' + card.id + '"]');
    Array.prototype.forEach.call(existing, function (node) {
      var focused = document.activeElement;
      var hadFocus = node.contains(focused);
      // the same action keeps the focus in the re-drawn card ("act-undo"), else the card itself
      var action = hadFocus && focused !== node ? (focused.className.match(/\bact-[\w-]+/) || [""])[0] : "";
      var fresh = render(merged);
      node.replaceWith(fresh);
      if (hadFocus) (action && fresh.querySelector("." + action + ":not([disabled])") || fresh).focus();
    });
    cards[card.id] = merged;
  }

  function place(container, card) {
    if (container.querySelector('[data-draft="' + card.id + '"]')) {
      update(card);
      return;
    }
    container.appendChild(render(card));
  }

  window.HelenaCards = { render: render, update: update, place: place, all: cards, refreshAkteLists: refreshAkteLists };

  /* After a draft was accepted or undone, the Akte's lists (Fristen, Zeiten, Dokumente, Notizen,
     Verlauf, Sachstand) are re-read from the server page, rendered for this user now, and swapped
     in place (the note form and anything being typed stay untouched). */
  var refreshing = false;
  function refreshAkteLists(statusBox) {
    if (refreshing) return;
    refreshing = true;
    window.fetch(window.location.pathname, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        if (!html) return;
        var fresh = new DOMParser().parseFromString(html, "text/html");
        Array.prototype.forEach.call(document.querySelectorAll("[data-live]"), function (node) {
          var next = fresh.querySelector('[data-live="' + node.dataset.live + '"]');
          if (next) node.replaceWith(document.importNode(next, true));
        });
        if (statusBox) statusBox.textContent = "Die Akte ist aktualisiert.";
        document.body.dataset.akteRefreshed = String(Number(document.body.dataset.akteRefreshed || 0) + 1);
      })
      .catch(function () { /* the next change or a reload shows it */ })
      .then(function () { refreshing = false; });
  }

  /* The Akte page: render its open drafts, add new ones live and follow their status. */
  document.addEventListener("DOMContentLoaded", function () {
    var container = document.getElementById("akte-cards");
    var data = document.getElementById("akte-cards-data");
    if (!container || !data) return;
    JSON.parse(data.textContent).forEach(function (card) { place(container, card); });
    var akte = container.dataset.akte;
    var connection = window.Helena.connect({
      open: function () { connection.send({ type: "akte.watch", akte: Number(akte) }); },
      message: function (msg) {
        var statusBox = document.getElementById("akte-live");
        if (msg.type === "draft.changed") {
          update(msg);
          if (msg.status === "ACCEPTED" || msg.status === "UNDONE" || msg.status === "PENDING") refreshAkteLists(statusBox);
        }
        if (msg.type === "draft.created" && msg.card && String(msg.card.akte) === akte) {
          var empty = container.parentNode.querySelector("p.muted.no-drafts");
          if (empty) empty.remove();
          place(container, msg.card);
          if (statusBox) statusBox.textContent = "Neuer Entwurf von Helena: " + msg.card.titel;
        }
      },
    });
  });
})();
