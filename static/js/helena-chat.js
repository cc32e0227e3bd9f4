/* The chat page: one websocket, the live step feed, streaming answers, cancel / continue, and the
   replay after a reconnect (`run.resume` with the last seq this page saw). */
(function () {
  "use strict";

  var el = window.Helena.el;
  var state, feed, connection, form, textBox, errorBox, connectionBox;
  var lastSeq = {};
  var runs = {};
  var watchedAkten = {};
  var pendingSend = null;

  /* ---- small helpers: icons, Markdown while streaming, sources ----------------------------- */

  var icon = window.Helena.icon;

  /* Inline Markdown (**fett**, *kursiv*, `Code`) as DOM nodes: text only ever goes into text nodes,
     so nothing the model writes can become HTML. The server's sanitised HTML replaces it at the end. */
  function inline(parent, text) {
    var re = /(\*\*[^*]+\*\*|\*[^*\s][^*]*\*|`[^`]+`)/g;
    var last = 0, m;
    while ((m = re.exec(text)) !== null) {
      if (m.index > last) parent.appendChild(document.createTextNode(text.slice(last, m.index)));
      var token = m[0];
      if (token.charAt(0) === "`") parent.appendChild(el("code", { text: token.slice(1, -1) }));
      else if (token.slice(0, 2) === "**") parent.appendChild(el("strong", { text: token.slice(2, -2) }));
      else parent.appendChild(el("em", { text: token.slice(1, -1) }));
      last = re.lastIndex;
    }
    if (last < text.length) parent.appendChild(document.createTextNode(text.slice(last)));
  }

  /* Block Markdown while the answer streams: headings, bullet and numbered lists, paragraphs. */
  function renderStreaming(target, text) {
    var frag = document.createDocumentFragment();
    var list = null, para = null;
    text.split("\n").forEach(function (line) {
      var heading = /^(#{1,4})\s+(.*)$/.exec(line);
      var bullet = /^\s*[-*]\s+(.*)$/.exec(line);
      var number = /^\s*\d+[.)]\s+(.*)$/.exec(line);
      if (!line.trim()) {
        list = null;
        para = null;
      } else if (heading) {
        list = null;
        para = null;
        var h = el("h" + Math.min(heading[1].length + 2, 6), {});
        inline(h, heading[2]);
        frag.appendChild(h);
      } else if (bullet || number) {
        para = null;
        var tag = bullet ? "ul" : "ol";
        if (!list || list.tagName.toLowerCase() !== tag) {
          list = el(tag, {});
          frag.appendChild(list);
        }
        var item = el("li", {});
        inline(item, (bullet || number)[1]);
        list.appendChild(item);
      } else {
        list = null;
        if (!para) {
          para = el("p", {});
          frag.appendChild(para);
        } else {
          para.appendChild(el("br", {}));
        }
        inline(para, line);
      }
    });
    target.textContent = "";
    target.appendChild(frag);
  }

  function sourceLabel(source) {
    var label = source.label || source.zitat || source.muster || source.rechner || source.query || "Quelle";
    if (source.rechner && source.grundlage) label += " (" + source.grundlage + ")";
    return String(label);
  }

  function sourceHref(source) {
    var pages = window.Helena.config().source_pages || {};
    var page = pages[source.table];
    if (page && /^\d+$/.test(String(source.id))) return page.replace("/0/", "/" + source.id + "/");
    if (typeof source.url === "string" && /^https?:\/\//.test(source.url)) return source.url;
    return "";
  }

  function sourcesList(sources) {
    var list = el("ul", { className: "sources" });
    sources.forEach(function (source) {
      var href = sourceHref(source);
      var external = href && href.charAt(0) !== "/";
      var content = href ? el("a", external ? { href: href, rel: "noopener noreferrer", target: "_blank" } : { href: href }, [sourceLabel(source)]) : sourceLabel(source);
      list.appendChild(el("li", {}, [content]));
    });
    return el("details", { className: "observation sources-details" }, [el("summary", { text: "Quellen (" + sources.length + ")" }), list]);
  }

  function send(message) {
    return connection ? connection.send(message) : false;
  }

  function watchAkte(akte) {
    if (!akte || watchedAkten[akte]) return;
    if (send({ type: "akte.watch", akte: Number(akte) })) watchedAkten[akte] = true;
  }

  /* ---- run blocks ------------------------------------------------------------------------ */

  function runBlock(runId, live) {
    if (runs[runId]) return runs[runId];
    var li = feed.querySelector('li.turn-helena[data-run="' + runId + '"]');
    var block = { id: runId, calls: {}, isStatic: false };
    if (li && li.dataset.static) {
      block.isStatic = true;
      block.li = li;
      block.steps = li.querySelector("ol.steps");
      block.cards = li.querySelector(".draft-cards");
      runs[runId] = block;
      return block;
    }
    if (!live) return null;
    var hint = feed.querySelector(".empty-hint");
    if (hint) hint.remove();
    li = el("li", { className: "turn turn-helena live", "data-run": runId });
    block.li = li;
    block.meta = el("div", { className: "turn-meta" }, [el("span", { className: "who-label", text: "Helena" })]);
    block.mode = el("span", { className: "badge mode-badge" });
    setMode(block, false);
    block.status = el("span", { className: "badge run-status", text: "Status: läuft" });
    block.meta.appendChild(block.mode);
    block.meta.appendChild(block.status);
    block.steps = el("ol", { className: "steps", role: "log", "aria-label": "Schritte von Helena", "aria-live": "polite" });
    block.answer = el("div", { className: "answer streaming", tabindex: "-1" });
    block.actions = el("div", { className: "run-actions" });
    block.cancel = el("button", { type: "button", className: "cancel-run", text: "Abbrechen" });
    block.cancel.addEventListener("click", function () {
      block.cancel.disabled = true;
      send({ type: "run.cancel", run: runId });
    });
    block.actions.appendChild(block.cancel);
    block.cards = el("div", { className: "draft-cards", "data-run": runId });
    [block.meta, block.steps, block.answer, block.actions, block.cards].forEach(function (n) { li.appendChild(n); });
    feed.appendChild(li);
    runs[runId] = block;
    return block;
  }

  /* A background run waiting for a worker: its place in the queue, asked again from the runs API
     until it starts. A Mandantin gets no place (README, "Was eine Mandantin sieht"), only that it waits. */
  var QUEUE_POLL_MS = 5000;

  function showQueued(runId, position) {
    var block = runs[runId];
    if (!block || !block.status || block.started) return;
    block.queued = true;
    if (!position) {
      block.status.textContent = "Status: wartet – in der Warteschlange";
      return;
    }
    block.status.textContent = "Status: wartet – Platz " + position + " in der Warteschlange";
    window.setTimeout(function () {
      if (!block.queued) return;
      fetch("/api/auftraege/" + runId + "/", { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (run) {
          if (run && run.queue_position) showQueued(runId, run.queue_position);
        })
        .catch(function () { /* the run's own events still arrive */ });
    }, QUEUE_POLL_MS);
  }

  function setMode(block, background) {
    block.mode.textContent = "";
    block.mode.appendChild(icon(background ? "background" : "inline"));
    block.mode.appendChild(document.createTextNode(background ? " Hintergrund" : " Inline"));
  }

  function stepItem(block, className, text) {
    var item = el("li", { className: "step " + className }, [text]);
    block.steps.appendChild(item);
    return item;
  }

  function details(summary, content) {
    return el("details", { className: "observation" }, [el("summary", { text: summary }), el("pre", { text: content })]);
  }

  function onEvent(event) {
    var runId = event.run;
    if (event.seq !== undefined) {
      if (event.seq <= (lastSeq[runId] || 0)) return;
      lastSeq[runId] = event.seq;
    }
    var block = runBlock(runId, true);
    if (!block) return;
    var type = event.type;
    // A run rendered by the server (reopened conversation) only fills its step list on demand.
    if (block.isStatic && (type === "answer.delta" || type === "draft.created" || window.Helena.isTerminal(type) || type === "run.cap_reached")) {
      return;
    }
    if (type === "run.started") {
      block.started = true;
      if (block.status && block.queued) block.status.textContent = "Status: läuft";
      block.queued = false;
      var background = String(event.mode).toUpperCase() === "BACKGROUND";
      if (block.mode) setMode(block, background);
      showModel(block, event.model, event.demo);
      if (event.note) stepItem(block, "demo-note", event.note);
      stepItem(block, "started", "Auftrag angenommen (höchstens " + event.max_steps + " Schritte).");
    } else if (type === "step.started") {
      resetStream(block);
      stepItem(block, "step-label", event.label || "Schritt " + event.step + "/" + event.max_steps);
    } else if (type === "thought") {
      resetStream(block);
      if (event.text) stepItem(block, "thought", "Überlegung: " + event.text);
    } else if (type === "tool.call") {
      resetStream(block);
      var call = stepItem(block, "tool-call", (event.label || "Werkzeug") + " (" + event.tool + ")");
      call.appendChild(details("Argumente", JSON.stringify(event.args || {}, null, 2)));
      block.calls[event.call_id] = call;
    } else if (type === "tool.result") {
      var target = block.calls[event.call_id] || stepItem(block, "tool-call", event.tool);
      var line = el("div", { className: "tool-result " + (event.ok ? "ok" : "fail") }, [
          icon(event.ok ? "check" : "cross"),
        // the summary says itself what it is ("3 Ergebnisse: …", "Fehler: …")
        " " + (event.summary || (event.ok ? "ok" : "Fehler")),
      ]);
      if (event.cached) line.appendChild(el("span", { className: "badge", text: "aus Zwischenspeicher" }));
      if (event.untrusted) line.appendChild(el("span", { className: "badge warn", text: "ungeprüfter Text" }));
      target.appendChild(line);
      if (event.source && event.source.length) target.appendChild(sourcesList(event.source));
    } else if (type === "guard.repair") {
      // without `kind` it is a retry of the model call or text thrown away; with one, a call's repair
      if (!event.kind) resetStream(block);
      stepItem(block, "repair", "Reparatur: " + (event.what || ""));
    } else if (type === "escalation") {
      resetStream(block);
      // the switch to the demo model is no escalation for the user: one line saying who answers now
      if (event.demo) stepItem(block, "demo-note", event.reason || "Das eingebaute Demo-Modell antwortet.");
      else if (event.from_tier === undefined) stepItem(block, "escalation", "Ein anderes Modell übernimmt: " + (event.reason || ""));
      else stepItem(block, "escalation", "Eskalation von Stufe " + event.from_tier + " zu Stufe " + event.to_tier + ": " + (event.reason || ""));
      showModel(block, event.model, event.demo);
    } else if (type === "stall") {
      stepItem(block, "stall", "Helena tritt auf der Stelle: " + (event.reason || ""));
    } else if (type === "budget.tools_compacted") {
      resetStream(block); // a model call that failed on its context is asked again
    } else if (type === "budget.truncated") {
      stepItem(block, "budget", "Kontext gekürzt, damit er ins Modell passt.");
    } else if (type === "answer.delta") {
      block.raw = (block.raw || "") + (event.text || "");
      renderStreaming(block.answer, block.raw);
    } else if (type === "draft.created") {
      if (event.card && event.card.id) {
        window.HelenaCards.place(block.cards, event.card);
        watchAkte(event.card.akte);
      }
    } else if (type === "run.cap_reached") {
      offerContinuation(block, event.message || window.Helena.config().continue_offer);
    } else if (window.Helena.isTerminal(type)) {
      finish(block, event);
    }
  }

  /* The streamed text is the answer only if the run ends with it. It belongs to one model call:
     when that call's text turns out to be a thought (a tool call follows), or a new step, a retry
     or another model begins, it goes, so two texts never run together. */
  function resetStream(block) {
    block.raw = "";
    if (block.answer) block.answer.textContent = "";
  }

  // The header names the model that answers now (after a switch: the new one) and marks the demo model.
  function showModel(block, model, demo) {
    if (!block.meta) return;
    if (model) { // a client's frames carry no model name (agent/chat/tails.py, viewer_event)
      var name = block.meta.querySelector(".model-name");
      if (!name) name = block.meta.appendChild(el("span", { className: "muted model-name" }));
      name.textContent = "Modell: " + model + (demo ? " (Demo)" : "");
    }
    if (demo && !block.meta.querySelector(".demo-badge")) {
      block.meta.appendChild(el("span", { className: "badge warn demo-badge", text: "Demo-Modell – keine echte KI-Auskunft" }));
    }
  }

  function offerContinuation(block, text) {
    if (block.offer) return;
    var button = el("button", { type: "button", className: "primary continue-run", text: "Im Hintergrund weitermachen" });
    block.offer = el("div", { className: "continue-offer", role: "group", "aria-label": "Weitermachen?" }, [el("p", { text: text }), button]);
    button.addEventListener("click", function () {
      button.disabled = true;
      send({ type: "run.continue_background", run: block.id });
    });
    block.actions.appendChild(block.offer);
  }

  /* „Als Word speichern“: the answer becomes a document draft of the run's Akte (reviewed like every draft). */
  function offerSaveAsWord(block) {
    var button = el("button", { type: "button", className: "save-word", text: "Als Word speichern" });
    var note = el("span", { className: "save-word-status", role: "status" });
    button.addEventListener("click", function () {
      button.disabled = true;
      fetch("/api/antworten/" + block.id + "/als-dokument/", {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken(), Accept: "application/json" },
        body: "{}",
      }).then(function (response) {
        return response.json().catch(function () { return {}; }).then(function (data) {
          if (!response.ok) {
            button.disabled = false;
            note.textContent = (data && data.detail) || "Speichern fehlgeschlagen (" + response.status + ").";
            return;
          }
          note.textContent = "Als Dokument-Entwurf in Akte " + data.aktenzeichen + " gespeichert; er wartet auf Prüfung. ";
          note.appendChild(el("a", { href: data.downloads.docx, text: "Word" }));
          note.appendChild(document.createTextNode(" · "));
          note.appendChild(el("a", { href: data.downloads.pdf, text: "PDF" }));
        });
      });
    });
    block.actions.appendChild(button);
    block.actions.appendChild(note);
  }

  /* ---- copy, regenerate, feedback ---------------------------------------------------------- */

  function csrfToken() {
    var input = document.querySelector('input[name="csrfmiddlewaretoken"]');
    if (input) return input.value;
    var m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return m ? decodeURIComponent(m[1]) : "";
  }

  function feedbackForm(runId) {
    var commentId = "fb-" + runId;
    var form = el("form", { method: "post", action: "/helena/auftraege/" + runId + "/bewertung/", className: "feedback-form", "aria-label": "Rückmeldung zur Antwort" }, [
      el("input", { type: "hidden", name: "csrfmiddlewaretoken", value: csrfToken() }),
      el("button", { type: "submit", name: "rating", value: "UP", className: "feedback-up", "aria-pressed": "false" }, [icon("thumb-up"), el("span", { text: "Hilfreich" })]),
      el("button", { type: "submit", name: "rating", value: "DOWN", className: "feedback-down", "aria-pressed": "false" }, [icon("thumb-down"), el("span", { text: "Nicht hilfreich" })]),
      el("details", { className: "feedback-comment" }, [
        el("summary", { text: "Kommentar hinzufügen" }),
        el("label", { for: commentId, text: "Was war gut oder falsch? (freiwillig)" }),
        el("textarea", { id: commentId, name: "comment", rows: "2", maxlength: "2000" }),
        el("p", { className: "muted", text: "Wähle danach „Hilfreich“ oder „Nicht hilfreich“." }),
      ]),
      el("span", { className: "feedback-status", role: "status" }),
    ]);
    return form;
  }

  function wireActions(container, answerNode, question) {
    var copy = container.querySelector(".copy-answer");
    var again = container.querySelector(".regenerate");
    var form = container.querySelector(".feedback-form");
    var status = form ? form.querySelector(".feedback-status") : null;
    if (copy && navigator.clipboard) {
      copy.hidden = false;
      copy.addEventListener("click", function () {
        navigator.clipboard.writeText(answerNode.innerText.trim()).then(
          function () { copy.textContent = "Kopiert"; announce("Die Antwort ist in der Zwischenablage."); },
          function () { announce("Kopieren nicht möglich – bitte markiere den Text selbst."); }
        );
      });
    }
    if (again && question) {
      again.hidden = false;
      again.addEventListener("click", function () {
        again.disabled = true;
        sendText(question);
      });
    }
    if (form) {
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        var button = event.submitter;
        if (!button || !button.value) return;
        var data = new FormData(form);
        data.set("rating", button.value);
        window.fetch(form.action, { method: "POST", body: data, headers: { Accept: "application/json" }, credentials: "same-origin" })
          .then(function (response) { return response.json().then(function (body) { return { ok: response.ok, body: body }; }); })
          .then(function (result) {
            if (!result.ok) {
              status.textContent = result.body.error || "Die Rückmeldung konnte nicht gespeichert werden.";
              return;
            }
            Array.prototype.forEach.call(form.querySelectorAll("button[name=rating]"), function (b) {
              b.setAttribute("aria-pressed", b.value === result.body.rating ? "true" : "false");
            });
            status.textContent = result.body.message;
          })
          .catch(function () { status.textContent = "Die Rückmeldung konnte nicht gespeichert werden."; });
      });
    }
  }

  function addActions(block) {
    if (block.answerActions) return;
    var container = el("div", { className: "answer-actions", "data-run": block.id }, [
      el("button", { type: "button", className: "copy-answer", hidden: "hidden" }, [icon("copy"), " Antwort kopieren"]),
      el("button", { type: "button", className: "regenerate", hidden: "hidden" }, [icon("background"), " Neu erzeugen"]),
    ]);
    if (block.hasAnswer) container.appendChild(feedbackForm(block.id));
    block.li.insertBefore(container, block.cards);
    block.answerActions = container;
    wireActions(container, block.answer, block.question);
  }

  function finish(block, event) {
    block.status.textContent = "Status: " + window.Helena.statusLabel(event.status);
    block.li.classList.remove("live");
    block.li.classList.add("finished");
    if (block.cancel) block.cancel.remove();
    block.answer.classList.remove("streaming");
    // Without an answer the streamed text was none (the model failed, the guard threw it away, the
    // time limit came first): it goes, as it is gone after a reload. The engine itself keeps a cut
    // answer, marked, in `answer`.
    resetStream(block);
    if (event.answer_html) block.answer.innerHTML = event.answer_html; // sanitised on the server (nh3)
    else if (event.answer) block.answer.textContent = event.answer;
    if (event.error) block.answer.appendChild(el("p", { className: "error", text: event.error }));
    if (event.continuable) offerContinuation(block, window.Helena.config().continue_offer);
    if (event.status === "DONE" && event.answer) offerSaveAsWord(block);
    block.hasAnswer = Boolean(event.answer || event.answer_html);
    if (block.question || block.hasAnswer) addActions(block);
    var label = window.Helena.statusLabel(event.status);
    if (event.status === "CANCELLED") announce("Auftrag abgebrochen.");
    else if (event.answer) announce(event.status === "DONE" ? "Helena hat geantwortet." : "Helena hat geantwortet (" + label + ").");
    else announce("Helena hat keine Antwort gegeben (" + label + ").");
    var active = document.activeElement;
    if (block.mine && (!active || active === document.body || active.id === "chat-send" || active.classList.contains("cancel-run"))) {
      block.answer.focus();
    }
  }

  function announce(text) {
    connectionBox.textContent = text;
  }

  /* ---- the socket ------------------------------------------------------------------------ */

  function onMessage(message) {
    if (message.type === "hello") return;
    if (message.type === "error") {
      showError(message.message, message.run);
      return;
    }
    if (message.type === "run.accepted") {
      var block = runBlock(message.run, true);
      block.mine = true;
      if (message.mode === "BACKGROUND" && block.mode) setMode(block, true);
      if (message.mode === "BACKGROUND" && message.status === "PENDING") showQueued(message.run, message.queue_position);
      block.question = textBox.dataset.lastSent || "";
      if (message.conversation && message.conversation !== state.conversation) {
        state.conversation = message.conversation;
        var url = "/helena/gespraeche/" + message.conversation + "/";
        window.history.replaceState(null, "", url);
        var list = document.querySelector(".conv-list ul");
        if (list) {
          var empty = list.querySelector(".muted");
          if (empty) empty.remove();
          var link = el("a", { href: url, "aria-current": "page", text: message.title || "Neues Gespräch" });
          list.insertBefore(el("li", {}, [link]), list.firstChild);
        }
        setHeading(message.title);
      }
      return;
    }
    if (message.type === "run.cancel_requested") {
      var b = runs[message.run];
      if (b && b.status) b.status.textContent = "Status: Abbruch angefordert …";
      return;
    }
    if (message.type === "draft.changed") {
      window.HelenaCards.update(message);
      return;
    }
    if (message.run !== undefined) onEvent(message);
  }

  function setHeading(title) {
    if (!title) return;
    var heading = document.getElementById("chat-h");
    if (heading) heading.textContent = title;
    document.title = title + " – Helena";
  }

  function showError(text, runId) {
    var block = runId && runs[runId];
    if (block && block.steps) {
      stepItem(block, "error", text);
      if (block.cancel) block.cancel.disabled = false;
    } else {
      errorBox.textContent = text;
    }
  }

  function connect() {
    connection = window.Helena.connect({
      open: function () {
        connectionBox.textContent = "Verbunden.";
        document.body.dataset.ws = "open";
        watchedAkten = {};
        if (state.akte) watchAkte(state.akte);
        Object.keys(window.HelenaCards.all).forEach(function (id) { watchAkte(window.HelenaCards.all[id].akte); });
        state.open_runs.forEach(function (r) {
          send({ type: "run.resume", run: r.run, after_seq: lastSeq[r.run] || 0 });
        });
        Object.keys(runs).forEach(function (id) {
          if (runs[id].li && runs[id].li.classList.contains("live")) send({ type: "run.resume", run: Number(id), after_seq: lastSeq[id] || 0 });
        });
        if (pendingSend) {
          send(pendingSend);
          pendingSend = null;
        }
      },
      message: onMessage,
      close: function (event) {
        document.body.dataset.ws = "closed";
        if (event.code === 4401) {
          connectionBox.textContent = "Du bist nicht mehr angemeldet. Bitte lade die Seite neu.";
          return false;
        }
        connectionBox.textContent = "Verbindung unterbrochen – neuer Versuch …";
        return true;
      },
    });
  }

  /* ---- the form -------------------------------------------------------------------------- */

  function submit(event) {
    event.preventDefault();
    errorBox.textContent = "";
    var text = textBox.value.trim();
    if (!text) {
      errorBox.textContent = "Bitte gib eine Nachricht ein.";
      textBox.focus();
      return;
    }
    sendText(text);
    textBox.value = "";
  }

  function sendText(text) {
    var akte = document.getElementById("chat-akte").value;
    var message = { type: "chat.send", text: text };
    if (state.conversation) message.conversation = state.conversation;
    if (akte) message.akte = Number(akte);
    if (document.getElementById("chat-background").checked) message.mode = "BACKGROUND";
    var hint = feed.querySelector(".empty-hint");
    if (hint) hint.remove();
    feed.appendChild(el("li", { className: "turn turn-user" }, [el("span", { className: "who-label", text: "Du:" }), " ", el("span", { className: "question-text", text: text })]));
    if (!send(message)) {
      pendingSend = message;
      connectionBox.textContent = "Nachricht wird gesendet, sobald die Verbindung steht …";
    }
    textBox.dataset.lastSent = text;
  }

  document.addEventListener("DOMContentLoaded", function () {
    feed = document.getElementById("chat-feed");
    form = document.getElementById("chat-form");
    if (!feed || !form) return;
    state = JSON.parse(document.getElementById("chat-state").textContent);
    textBox = document.getElementById("chat-text");
    errorBox = document.getElementById("chat-error");
    connectionBox = document.getElementById("connection");
    var cardsByRun = JSON.parse(document.getElementById("chat-cards").textContent || "{}");
    Object.keys(cardsByRun).forEach(function (runId) {
      var container = feed.querySelector('.draft-cards[data-run="' + runId + '"]');
      if (container) cardsByRun[runId].forEach(function (card) { window.HelenaCards.place(container, card); });
    });
    Array.prototype.forEach.call(feed.querySelectorAll("details.steps-details"), function (d) {
      d.addEventListener("toggle", function () {
        if (d.open && !d.dataset.loaded) {
          d.dataset.loaded = "1";
          send({ type: "run.resume", run: Number(d.dataset.run), after_seq: 0 });
        }
      });
    });
    // on a narrow screen the conversation list starts collapsed, so the chat comes first
    var list = document.querySelector(".conv-collapse");
    if (list && window.matchMedia("(max-width: 800px)").matches) list.open = false;
    form.addEventListener("submit", submit);
    // Enter sends, Shift+Enter starts a new line (not while an input method composes a word)
    textBox.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing && !event.altKey) submit(event);
    });
    Array.prototype.forEach.call(feed.querySelectorAll("li.turn-helena[data-static]"), function (li) {
      var container = li.querySelector(".answer-actions");
      if (container) wireActions(container, li.querySelector(".answer"), li.dataset.question || "");
    });
    connect();
  });
})();
