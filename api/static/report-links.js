// Added to every report page served under /reports/: elements with a `data-node-id` attribute become links
// into the graph browser (/browser#node=<id>), unless they already are links. Reports may also write such
// anchors themselves; see notes on the URL scheme.
"use strict";

(function () {
  for (const element of document.querySelectorAll("[data-node-id]")) {
    const id = element.getAttribute("data-node-id");
    if (!id) continue;
    const href = `/browser#node=${encodeURIComponent(id)}`;
    if (element.tagName === "A") {
      if (!element.getAttribute("href")) element.setAttribute("href", href);
      continue;
    }
    if (element.closest("a")) continue;
    const link = document.createElement("a");
    link.href = href;
    link.target = "_top";
    element.replaceWith(link);
    link.append(element);
  }
})();
