// One kept LLM exchange (/exchange#<hash>): the request exactly as the model received it (messages, tools,
// parameters) and its reply, from GET /exchanges/<hash>. Judge and synthesis requests hold gold: the server
// answers 403 without the API token, and the page asks for it (kept in this tab's sessionStorage only, under
// the adjudication page's key). The DOM is built with textContent only.
"use strict";

(function () {
  const TOKEN_KEY = "colabench-api-token";
  const $ = (id) => document.getElementById(id);

  function el(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }

  function status(text, isError) {
    $("status").textContent = text;
    $("status").className = isError ? "error" : "";
  }

  function block(title, value) {
    const details = el("details");
    details.append(el("summary", title), el("pre", typeof value === "string" ? value : JSON.stringify(value, null, 2)));
    return details;
  }

  function render(x) {
    const out = [];
    out.push(el("p", `${x.role} · model ${x.model}${x.namespace ? ` · namespace ${x.namespace}` : ""} · exchange ${x.exchange}`));
    const request = Object.assign({}, x.request);
    const messages = request.messages || [];
    delete request.messages;
    out.push(el("h2", `Request: ${messages.length} message(s)`));
    for (const m of messages) {
      const card = el("div", null, "card");
      card.append(el("div", m.role + (m.tool_call_id ? ` (tool call ${m.tool_call_id})` : ""), "meta"));
      card.append(el("pre", typeof m.content === "string" ? m.content : JSON.stringify(m.content, null, 2)));
      if (m.tool_calls) card.append(block("tool calls", m.tool_calls));
      out.push(card);
    }
    for (const name of ["tools", "response_format"]) {
      if (request[name] !== undefined) {
        out.push(block(name, request[name]));
        delete request[name];
      }
    }
    out.push(block("parameters", request));
    out.push(el("h2", "Reply"));
    if (x.reply.content) out.push(el("pre", x.reply.content));
    if (x.reply.tool_calls && x.reply.tool_calls.length) out.push(block("tool calls", x.reply.tool_calls));
    out.push(block("reply record", x.reply));
    $("exchange").replaceChildren(...out);
  }

  async function load() {
    const key = decodeURIComponent(location.hash.replace(/^#/, ""));
    if (!/^[0-9a-f]{64}$/.test(key)) {
      status("no exchange hash in the address (expected /exchange#<64 hex digits>)", true);
      return;
    }
    const token = sessionStorage.getItem(TOKEN_KEY) || "";
    const response = await fetch(`/exchanges/${key}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    const body = await response.json();
    if (response.status === 403) {
      $("token-form").hidden = false;
      status(body.detail || "this exchange holds gold: enter the API token", true);
      return;
    }
    if (!response.ok) {
      status(body.detail || `HTTP ${response.status}`, true);
      return;
    }
    $("token-form").hidden = true;
    status("");
    render(body);
  }

  $("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const value = $("token").value.trim();
    $("token").value = "";
    if (value) sessionStorage.setItem(TOKEN_KEY, value);
    load().catch((error) => status(error.message, true));
  });
  window.addEventListener("hashchange", () => load().catch((error) => status(error.message, true)));
  load().catch((error) => status(error.message, true));
})();
