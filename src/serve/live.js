// seihon watch: reloads the page after each good build and, while the latest build has failed,
// shows its findings on top of the page. Served by `seihon watch` only; never in the EPUB.
(function () {
  "use strict";
  // The server writes the generation of the page into this script's address (?g=N), so a
  // build that finished while the page was loading still reloads it.
  var me = document.currentScript;
  var since = me ? new URL(me.src, location.href).searchParams.get("g") : null;
  var url = "/_seihon/events" + (since ? "?since=" + encodeURIComponent(since) : "");
  var events = new EventSource(url);
  events.addEventListener("reload", function () {
    location.reload();
  });
  events.addEventListener("failed", function (e) {
    try {
      show(JSON.parse(e.data));
    } catch (err) {
      show({ findings: [], failed_stage: null });
    }
  });

  // Elements are made one by one and filled with textContent: messages quote the book's own
  // text, which must never be read as markup. Works in XHTML pages too.
  function el(name, style, text) {
    var e = document.createElementNS("http://www.w3.org/1999/xhtml", name);
    // The book's own CSS styles p, li and div too (e.g. indented paragraphs): reset that.
    e.setAttribute("style", "text-indent:0;text-align:left;float:none;" + style);
    if (text != null) e.textContent = text;
    return e;
  }

  function place(f) {
    var s = f.file || "";
    if (f.line > 0) {
      s += ":" + f.line;
      if (f.col > 0) s += ":" + f.col;
    }
    return s;
  }

  function show(state) {
    var old = document.getElementById("seihon-overlay");
    if (old) old.remove();
    var box = el(
      "div",
      "position:fixed;top:0;left:0;right:0;z-index:2147483647;max-height:60vh;overflow:auto;" +
        "margin:0;padding:0.8em 1em;background:#fff4f4;color:#1a1a1a;border-bottom:3px solid #c62828;" +
        "font:14px/1.5 ui-monospace,monospace;writing-mode:horizontal-tb;direction:ltr;text-align:left;" +
        "text-indent:0;letter-spacing:normal;" +
        "box-shadow:0 2px 8px rgba(0,0,0,0.3)"
    );
    box.id = "seihon-overlay";
    box.setAttribute("role", "alert");
    var stage = state.failed_stage ? " (it failed at the " + state.failed_stage + " step)" : "";
    box.appendChild(
      el(
        "p",
        "margin:0 0 0.5em;font-weight:bold;color:#c62828",
        "The book was not rebuilt" + stage + ". This page shows the last good build; " +
          "fix the problems below and save: the page reloads by itself."
      )
    );
    var list = el("ul", "margin:0;padding:0;list-style:none");
    (state.findings || []).forEach(function (f) {
      var item = el("li", "margin:0.3em 0;white-space:pre-wrap");
      var color = f.severity === "error" ? "#c62828" : "#8a6d00";
      item.appendChild(el("span", "color:" + color, place(f) + ": "));
      item.appendChild(document.createTextNode(f.message || ""));
      if (f.hint) item.appendChild(el("div", "color:#555;padding-left:2em", "help: " + f.hint));
      list.appendChild(item);
    });
    box.appendChild(list);
    (document.body || document.documentElement).appendChild(box);
  }
})();
