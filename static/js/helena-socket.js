/* Shared by Helena's scripts (chat, "Meine Aufträge", draft cards): a small DOM helper and the one
   websocket connection. What must not be copied into JavaScript comes from the server in the JSON
   script "helena-client" ({% helena_client %}): the socket path, the events that end a run, the
   German status labels and the continuation offer. */
(function () {
  "use strict";

  var config = null;

  function readConfig() {
    if (!config) {
      var node = document.getElementById("helena-client");
      config = node ? JSON.parse(node.textContent) : { ws_path: "/ws/helena/", terminal: [], status_labels: {}, continue_offer: "" };
    }
    return config;
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === "text") node.textContent = attrs[key];
      else if (key === "className") node.className = attrs[key];
      else node.setAttribute(key, attrs[key]);
    });
    (children || []).forEach(function (child) {
      if (child) node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  /* A decorative inline SVG icon (paths from the server's config; never emoji, which render as
     boxes without an emoji font). */
  function icon(name) {
    var ns = "http://www.w3.org/2000/svg";
    var svg = document.createElementNS(ns, "svg");
    var path = (readConfig().icons || {})[name];
    var attrs = { "class": "icon", "aria-hidden": "true", focusable: "false", viewBox: "0 0 24 24", width: "16", height: "16",
      fill: "none", stroke: "currentColor", "stroke-width": "2", "stroke-linecap": "round", "stroke-linejoin": "round" };
    Object.keys(attrs).forEach(function (key) { svg.setAttribute(key, attrs[key]); });
    if (path) {
      var p = document.createElementNS(ns, "path");
      p.setAttribute("d", path);
      svg.appendChild(p);
    }
    return svg;
  }

  function isTerminal(type) {
    return readConfig().terminal.indexOf(type) !== -1;
  }

  function statusLabel(status) {
    return readConfig().status_labels[status] || status || "beendet";
  }

  /* One socket to the server. handlers.open(), handlers.message(message) with the parsed frame,
     handlers.close(event) returning false to stop; with handlers.reconnect === false the socket is
     not reopened. Returns { send(message) -> bool }. */
  function connect(handlers) {
    var proto = window.location.protocol === "https:" ? "wss://" : "ws://";
    var delay = 500;
    var socket = null;
    function open() {
      socket = new WebSocket(proto + window.location.host + readConfig().ws_path);
      socket.addEventListener("open", function () {
        delay = 500;
        if (handlers.open) handlers.open();
      });
      socket.addEventListener("message", function (raw) {
        if (handlers.message) handlers.message(JSON.parse(raw.data));
      });
      socket.addEventListener("close", function (event) {
        var goOn = handlers.close ? handlers.close(event) !== false : true;
        if (goOn && handlers.reconnect !== false) {
          window.setTimeout(open, delay);
          delay = Math.min(delay * 2, 10000);
        }
      });
    }
    open();
    return {
      send: function (message) {
        if (socket && socket.readyState === WebSocket.OPEN) {
          socket.send(JSON.stringify(message));
          return true;
        }
        return false;
      },
    };
  }

  window.Helena = { el: el, icon: icon, config: readConfig, isTerminal: isTerminal, statusLabel: statusLabel, connect: connect };
})();
