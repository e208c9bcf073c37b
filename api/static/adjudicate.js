// colabench adjudication page: lists accuracy verdicts waiting for a person and records their pass/fail rulings.
// Every case carries gold, so nothing is asked of the server until the API token is given; the token is kept in
// this tab's sessionStorage only and sent as a bearer token. The DOM is built with textContent (no HTML from
// data ever reaches innerHTML).
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const TOKEN_KEY = "colabench-api-token";
  const NAME_KEY = "colabench-adjudicator";

  const PENDING = `query($runs: [ID!]) {
    pendingAdjudications(runs: $runs) {
      attemptId runId method itemId question referenceAnswer answer
      judgmentId judgeVerdict judgeRationale judgeModel pending
      requirements { id text action statements { turnId text } spans }
      calls { round ordinal tool arguments ok error returned response responseChars }
    }
  }`;
  const ADJUDICATE = `mutation($attempt: ID!, $verdict: String!, $reason: String!, $adjudicator: String!,
                               $judgmentId: String) {
    adjudicate(attempt: $attempt, verdict: $verdict, reason: $reason, adjudicator: $adjudicator,
               judgmentId: $judgmentId) { adjudicationId attemptId verdict }
  }`;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (name === "class") node.className = value;
      else if (name === "text") node.textContent = value;
      else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value);
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function status(text, isError) {
    const p = $("status");
    p.textContent = text;
    p.className = isError ? "error" : "";
  }

  function token() {
    return sessionStorage.getItem(TOKEN_KEY) || "";
  }

  async function gql(query, variables) {
    const response = await fetch("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token()}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = await response.json();
    if (body.errors && body.errors.length) {
      throw new Error(body.errors.map((e) => e.message).join("; "));
    }
    return body.data;
  }

  function section(title, ...content) {
    return [el("h3", { text: title }), ...content];
  }

  function renderCall(call) {
    const head = `round ${call.round}.${call.ordinal} ${call.tool} ${JSON.stringify(call.arguments)} ` +
      (call.ok ? "ok" : `failed: ${call.error || ""}`);
    const details = el("details", { class: "call" }, el("summary", { text: head }));
    if (call.returned.length) details.append(el("p", { class: "span", text: "returned: " + call.returned.join(", ") }));
    if (call.response) {
      const cut = call.responseChars > call.response.length ? ` (first ${call.response.length} of ${call.responseChars} characters)` : "";
      details.append(el("pre", { text: call.response + cut }));
    }
    return details;
  }

  function renderCase(c) {
    const article = el("article", { class: "case", "data-attempt-id": c.attemptId });
    article.append(
      el("h2", {}, `${c.attemptId} `, el("span", { class: `verdict-${c.judgeVerdict}`, text: c.judgeVerdict })),
      el("p", { class: "span", text: `method ${c.method} · item ${c.itemId} · judgment ${c.judgmentId}` +
        (c.judgeModel ? ` · judge ${c.judgeModel}` : "") }),
      ...section("question", el("pre", { class: "question", text: c.question })),
    );
    if (c.referenceAnswer) article.append(...section("reference answer", el("pre", { class: "reference", text: c.referenceAnswer })));
    const reqs = el("ul", { class: "requirements" });
    for (const r of c.requirements) {
      const li = el("li", {}, el("span", { class: "req-text", text: `[${r.id}] ${r.text || ""}` }));
      if (r.action) li.append(el("div", { class: "statement", text: `action: ${r.action}` }));
      for (const s of r.statements) li.append(el("div", { class: "statement", text: `user said [${s.turnId}]: ${s.text}` }));
      for (const span of r.spans) li.append(el("div", { class: "span", text: `knowledge span: ${span}` }));
      reqs.append(li);
    }
    article.append(...section(`requirements (${c.requirements.length})`, reqs));
    article.append(...section("answer", el("pre", { class: "answer", text: c.answer || "(no answer)" })));
    article.append(...section("judge's rationale", el("pre", { class: "rationale", text: c.judgeRationale || "(none)" })));
    const trace = el("div", { class: "trace" });
    for (const call of c.calls) trace.append(renderCall(call));
    article.append(...section(`evidence trace (${c.calls.length} tool calls)`, trace));

    const name = `verdict-${c.attemptId}`;
    const reason = el("textarea", { class: "reason", placeholder: "why (required; kept as gold)" });
    const passBox = el("input", { type: "radio", name, value: "pass", class: "pass" });
    const failBox = el("input", { type: "radio", name, value: "fail", class: "fail" });
    const submit = el("button", { type: "submit", class: "submit", text: "record ruling" });
    const form = el("form", { class: "ruling" },
      el("label", {}, passBox, " pass"), el("label", {}, failBox, " fail"), reason, submit);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const verdict = passBox.checked ? "pass" : failBox.checked ? "fail" : null;
      const adjudicator = $("adjudicator").value.trim();
      if (!verdict) return status("choose pass or fail", true);
      if (!reason.value.trim()) return status("give a reason", true);
      if (!adjudicator) return status("enter your name (recorded as the adjudicator)", true);
      localStorage.setItem(NAME_KEY, adjudicator);
      submit.disabled = true;
      try {
        const data = await gql(ADJUDICATE, {
          attempt: c.attemptId, verdict, reason: reason.value, adjudicator, judgmentId: c.judgmentId,
        });
        form.replaceWith(el("p", { class: "done", text: `recorded ${data.adjudicate.verdict} (${data.adjudicate.adjudicationId})` }));
        status(`recorded ${data.adjudicate.verdict} for ${c.attemptId}`);
      } catch (error) {
        submit.disabled = false;
        status(String(error.message || error), true);
      }
    });
    article.append(form);
    return article;
  }

  async function load() {
    const cases = $("cases");
    cases.replaceChildren();
    if (!token()) {
      status("Pending verdicts carry gold (requirements, reference answers, the judge's rationale): enter the API token to list them.");
      return;
    }
    const runs = $("runs").value.split(",").map((s) => s.trim()).filter(Boolean);
    status("loading ...");
    try {
      const data = await gql(PENDING, { runs: runs.length ? runs : null });
      const list = data.pendingAdjudications;
      for (const c of list) cases.append(renderCase(c));
      status(list.length ? `${list.length} pending verdict(s)` : "no pending verdicts");
    } catch (error) {
      status(String(error.message || error), true);
    }
  }

  $("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const value = $("token").value.trim();
    if (value) sessionStorage.setItem(TOKEN_KEY, value);
    $("token").value = "";
    load();
  });
  $("forget").addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    load();
  });
  $("adjudicator").value = localStorage.getItem(NAME_KEY) || "";
  window.colabenchAdjudication = { load };
  load();
})();
