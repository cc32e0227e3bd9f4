/* Deleting a conversation with undo: the conversation disappears at once and a toast offers
   "Rückgängig" for a few seconds; only when that time has passed is the delete sent. Closing the
   tab within that time deletes nothing. Following a link or sending a form within that time counts
   as agreement: the delete is sent first. Without JavaScript the links lead to a confirmation page. */
(function () {
  "use strict";

  var pending = null;
  var toast, toastText, undoButton;

  function csrfToken() {
    var input = document.querySelector('input[name="csrfmiddlewaretoken"]');
    if (input) return input.value;
    var m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return m ? decodeURIComponent(m[1]) : "";
  }

  function listItem(id) {
    return document.querySelector('.conv-items li[data-conversation="' + id + '"]');
  }

  function isCurrent(id) {
    var state = document.getElementById("chat-state");
    return !!state && JSON.parse(state.textContent).conversation === Number(id);
  }

  function showToast(text, withUndo) {
    toastText.textContent = text;
    undoButton.hidden = !withUndo;
    toast.hidden = false;
  }

  function hideToast() {
    toast.hidden = true;
    toastText.textContent = "";
  }

  /* Hide the conversation now (its list entry, and the open conversation itself). */
  function hide(item) {
    var li = listItem(item.id);
    if (li) li.hidden = true;
    if (item.current) document.body.classList.add("conversation-deleted");
  }

  function restore(item) {
    var li = listItem(item.id);
    if (li) li.hidden = false;
    document.body.classList.remove("conversation-deleted");
  }

  /* Send the delete; resolves once the server has deleted it (or it was gone already). With
     `leave`, a deleted open conversation gives way to the empty chat page. */
  function commit(leave) {
    var item = pending;
    if (!item) return Promise.resolve();
    pending = null;
    window.clearTimeout(item.timer);
    return window.fetch(item.url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken(), Accept: "application/json" },
    }).then(function (response) {
      if (!response.ok && response.status !== 404) throw new Error(String(response.status));
      var li = listItem(item.id);
      if (li) li.remove();
      if (item.current && leave) {
        window.location.assign("/helena/");
        return;
      }
      showToast("Das Gespräch „" + item.title + "“ wurde gelöscht.", false);
      window.setTimeout(function () { if (!pending) hideToast(); }, 4000);
    }).catch(function () {
      restore(item);
      showToast("Das Gespräch „" + item.title + "“ konnte nicht gelöscht werden. Versuch es noch einmal.", false);
    });
  }

  function start(link) {
    var next = {
      id: link.dataset.conversation,
      title: link.dataset.title || "",
      url: link.dataset.deleteUrl,
      current: isCurrent(link.dataset.conversation),
      returnFocus: link,
    };
    var before = pending ? commit(false) : Promise.resolve();
    before.then(function () {
      pending = next;
      hide(next);
      showToast("Das Gespräch „" + next.title + "“ wird gelöscht.", true);
      undoButton.focus();
      next.timer = window.setTimeout(function () { commit(true); }, Number(toast.dataset.undoSeconds || 8) * 1000);
    });
  }

  function undo() {
    var item = pending;
    if (!item) return;
    pending = null;
    window.clearTimeout(item.timer);
    restore(item);
    showToast("Das Gespräch „" + item.title + "“ bleibt erhalten.", false);
    var li = listItem(item.id);
    var focus = li && !li.hidden ? li.querySelector("a") : null;
    (focus || document.getElementById("chat-h") || document.body).focus();
    window.setTimeout(function () { if (!pending) hideToast(); }, 4000);
  }

  document.addEventListener("DOMContentLoaded", function () {
    toast = document.getElementById("undo-toast");
    if (!toast) return;
    toastText = toast.querySelector(".toast-text");
    undoButton = toast.querySelector(".toast-undo");
    undoButton.addEventListener("click", undo);

    document.addEventListener("click", function (event) {
      var link = event.target.closest ? event.target.closest("a") : null;
      if (!link) return;
      if (link.dataset.deleteUrl) {
        event.preventDefault();
        start(link);
        return;
      }
      // leaving the page within the undo time: the person has let the deletion stand
      if (pending && link.href && !event.defaultPrevented && link.target !== "_blank") {
        event.preventDefault();
        commit(false).then(function () { window.location.assign(link.href); });
      }
    });
    document.addEventListener("submit", function (event) {
      var form = event.target;
      if (!pending || event.defaultPrevented || form.id === "chat-form") return;
      event.preventDefault();
      commit(false).then(function () { form.submit(); });
    });
  });
})();
