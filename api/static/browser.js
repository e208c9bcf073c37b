// colabench graph browser: search any node, expand neighbourhoods, colour by label, click a node to see its
// properties and provenance. Talks only to this server's /graphql; builds the DOM with textContent (no HTML
// from data ever reaches innerHTML). Deep links: /browser#node=<id>[&label=<Label>].
"use strict";

(function () {
  const COLORS = {
    Item: "#1f6feb", Requirement: "#8250df", Profile: "#bf3989", Fact: "#cf222e", Topic: "#d4a72c",
    Session: "#6e7781", Turn: "#1a7f37", Document: "#bc4c00", Chunk: "#e16f24", Memory: "#0969da",
    State: "#4b8b9e", Run: "#24292f", Attempt: "#57606a", ToolCall: "#8c959f", Judgment: "#953800",
    Adjudication: "#116329",
  };
  const $ = (id) => document.getElementById(id);
  const state = { byId: new Map(), selected: null, searchSeq: 0, detailSeq: 0 };

  // --- GraphQL -------------------------------------------------------------------------------------

  async function gql(query, variables) {
    const response = await fetch("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query, variables }),
    });
    const body = await response.json();
    if (body.errors && body.errors.length) {
      throw new Error(body.errors.map((e) => e.message).join("; "));
    }
    return body.data;
  }

  const NEIGHBORHOOD = `query($id: ID!, $label: String, $depth: Int!, $limit: Int!) {
    neighborhood(id: $id, label: $label, depth: $depth, limit: $limit) {
      truncated
      center { key id label }
      nodes { key id label caption properties redactedFields }
      edges { key type source target properties }
    }
  }`;
  const FIND = `query($text: String!) { findNodes(text: $text, limit: 15) { key id label caption matched } }`;

  // --- DOM helpers ---------------------------------------------------------------------------------

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

  // Gold (requirement texts, actions) is null for a request without the API token: say so instead of "null".
  function goldText(text) {
    return text === null || text === undefined ? "(hidden: gold, shown only with the API token)" : text;
  }

  function chip(label) {
    const c = el("span", { class: `chip lbl-${COLORS[label] ? label : "Node"}`, text: label });
    return c;
  }

  function nodeLink(id, label, text) {
    return el("button", {
      type: "button", class: "linkish", title: `${label || "node"} ${id}`, "data-node-id": id,
      onclick: () => openNode(id, label),
    }, text || id);
  }

  function setStatus(message, isError) {
    const status = $("status");
    status.textContent = message || "";
    status.classList.toggle("error", Boolean(isError));
  }

  function empty(text) {
    return el("p", { class: "empty", text });
  }

  // --- graph ---------------------------------------------------------------------------------------

  const cy = cytoscape({
    container: $("graph"),
    style: [
      {
        selector: "node",
        style: {
          "background-color": "data(color)", label: "data(short)", "font-size": 9, color: "#1d2327",
          "text-wrap": "ellipsis", "text-max-width": 96, "text-valign": "bottom", "text-margin-y": 3,
          "text-background-color": "#f7f7f5", "text-background-opacity": 0.85, "text-background-padding": 1,
          width: 22, height: 22, "border-width": 0,
        },
      },
      { selector: "node.center", style: { width: 30, height: 30 } },
      { selector: "node:selected", style: { "border-width": 3, "border-color": "#f0b400" } },
      {
        selector: "edge",
        style: {
          width: 1.2, "line-color": "#b8c0c6", "target-arrow-color": "#b8c0c6", "target-arrow-shape": "triangle",
          "curve-style": "bezier", "font-size": 7, color: "#5f6b73", "text-rotation": "autorotate",
        },
      },
      // Relationship names only around the selected node: on every edge they cover the node labels.
      {
        selector: "edge.near",
        style: { label: "data(type)", "line-color": "#8c959f", "target-arrow-color": "#8c959f",
          "text-background-color": "#ffffff", "text-background-opacity": 0.9, "text-background-padding": 1 },
      },
    ],
  });
  window.colabenchBrowser = { cy };

  function addView(view) {
    let added = 0;
    const elements = [];
    for (const node of view.nodes) {
      state.byId.set(node.key, node);
      if (cy.getElementById(node.key).nonempty()) continue;
      added += 1;
      elements.push({
        group: "nodes",
        data: {
          id: node.key, nodeId: node.id, label: node.label, caption: node.caption,
          short: node.caption.length > 28 ? `${node.caption.slice(0, 27)}…` : node.caption,
          color: COLORS[node.label] || "#999",
        },
      });
    }
    for (const edge of view.edges) {
      if (cy.getElementById(edge.key).nonempty()) continue;
      elements.push({ group: "edges", data: { id: edge.key, source: edge.source, target: edge.target, type: edge.type } });
    }
    cy.add(elements);
    cy.nodes().removeClass("center");
    cy.getElementById(view.center.key).addClass("center");
    if (added > 0) runLayout();
    renderLegend();
    renderNodeList();
    return added;
  }

  // cose with room for the labels (their boxes count as the nodes' size), then labels that still collide are
  // pushed apart: `labelOverlaps()` counts what is left (the browser test reads it).
  function runLayout() {
    cy.layout({
      name: "cose", animate: false, nodeDimensionsIncludeLabels: true, randomize: false, fit: true, padding: 30,
      idealEdgeLength: () => 90, nodeRepulsion: () => 60000, nodeOverlap: 40, componentSpacing: 90,
      numIter: 1500,
    }).run();
    separateLabels();
    cy.fit(undefined, 30);
  }

  function labelBoxes() {
    return cy.nodes().map((n) => ({ node: n, box: n.boundingBox({ includeLabels: true, includeOverlays: false }) }));
  }

  function overlapping(a, b) {
    return a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
  }

  function labelOverlaps() {
    const boxes = labelBoxes();
    let count = 0;
    for (let i = 0; i < boxes.length; i += 1) {
      for (let j = i + 1; j < boxes.length; j += 1) if (overlapping(boxes[i].box, boxes[j].box)) count += 1;
    }
    return count;
  }

  function separateLabels() {
    for (let pass = 0; pass < 60; pass += 1) {
      const boxes = labelBoxes();
      let moved = false;
      for (let i = 0; i < boxes.length; i += 1) {
        for (let j = i + 1; j < boxes.length; j += 1) {
          const a = boxes[i].box;
          const b = boxes[j].box;
          if (!overlapping(a, b)) continue;
          // push the pair apart along the axis where they overlap least
          const dx = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
          const dy = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
          const pa = boxes[i].node.position();
          const pb = boxes[j].node.position();
          if (dx < dy) {
            const shift = dx / 2 + 2;
            const sign = pa.x <= pb.x ? -1 : 1;
            boxes[i].node.position({ x: pa.x + sign * shift, y: pa.y });
            boxes[j].node.position({ x: pb.x - sign * shift, y: pb.y });
          } else {
            const shift = dy / 2 + 2;
            const sign = pa.y <= pb.y ? -1 : 1;
            boxes[i].node.position({ x: pa.x, y: pa.y + sign * shift });
            boxes[j].node.position({ x: pb.x, y: pb.y - sign * shift });
          }
          moved = true;
          boxes[i].box = boxes[i].node.boundingBox({ includeLabels: true, includeOverlays: false });
          boxes[j].box = boxes[j].node.boundingBox({ includeLabels: true, includeOverlays: false });
        }
      }
      if (!moved) return;
    }
  }
  window.colabenchBrowser.labelOverlaps = labelOverlaps;

  async function expand(id, label) {
    const depth = Number($("depth").value);
    setStatus(`loading ${id} …`);
    const data = await gql(NEIGHBORHOOD, { id, label: label || null, depth, limit: 150 });
    const view = data.neighborhood;
    const added = addView(view);
    setStatus(`${view.nodes.length} nodes around ${view.center.id} (${added} new)${view.truncated ? ", truncated" : ""}`);
    return view.center;
  }

  async function openNode(id, label) {
    showStart(false);
    try {
      const center = await expand(id, label);
      selectNode(center.key);
      const hash = `#node=${encodeURIComponent(center.id)}&label=${encodeURIComponent(center.label)}`;
      if (location.hash !== hash) history.replaceState(null, "", hash);
    } catch (error) {
      setStatus(error.message, true);
    }
  }

  function selectNode(key) {
    cy.nodes().unselect();
    cy.edges().removeClass("near");
    const element = cy.getElementById(key);
    if (element.nonempty()) {
      element.select();
      element.connectedEdges().addClass("near");
    }
    state.selected = key;
    showDetails(state.byId.get(key));
  }

  cy.on("tap", "node", (event) => selectNode(event.target.id()));
  cy.on("dbltap", "node", (event) => {
    const node = state.byId.get(event.target.id());
    if (node) expand(node.id, node.label).catch((error) => setStatus(error.message, true));
  });

  function renderLegend() {
    const present = new Set(cy.nodes().map((n) => n.data("label")));
    const legend = $("legend");
    legend.replaceChildren(...[...present].sort().map((label) => chip(label)));
    legend.hidden = present.size === 0;
  }

  function renderNodeList() {
    const filter = $("node-filter").value.trim().toLowerCase();
    const rows = [];
    const nodes = cy.nodes().map((n) => state.byId.get(n.id())).filter(Boolean);
    nodes.sort((a, b) => (a.label + a.id).localeCompare(b.label + b.id));
    for (const node of nodes) {
      const text = `${node.label} ${node.id} ${node.caption}`.toLowerCase();
      if (filter && !text.includes(filter)) continue;
      rows.push(el("li", {}, el("button", {
        type: "button", "data-key": node.key, "data-node-id": node.id, "data-label": node.label,
        onclick: () => selectNode(node.key),
      }, chip(node.label), node.caption)));
    }
    $("node-list").replaceChildren(...rows);
    $("node-count").textContent = `(${nodes.length})`;
  }
  $("node-filter").addEventListener("input", renderNodeList);
  $("fit").addEventListener("click", () => cy.fit(undefined, 30));
  $("clear").addEventListener("click", () => {
    cy.elements().remove();
    state.byId.clear();
    renderLegend();
    renderNodeList();
    $("details").replaceChildren(el("p", { class: "hint", text: "View cleared." }));
    showStart(true);
  });
  $("home").addEventListener("click", () => showStart(true));

  // --- details panel -------------------------------------------------------------------------------

  function propsTable(properties, redacted) {
    const rows = Object.entries(properties || {})
      .filter(([name]) => name !== "embedding")
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, value]) => el("tr", {}, el("th", { text: name }), el("td", {}, readableValue(value))));
    const table = el("table", { class: "props" }, el("tbody", {}, ...rows));
    if (redacted && redacted.length) {
      return el("div", {}, table, el("p", { class: "empty", text: `hidden gold fields: ${redacted.join(", ")}` }));
    }
    return table;
  }

  // A property value as a person reads it: lists joined (or "none"), objects as indented JSON, not one line.
  function readableValue(value) {
    if (value === null || value === undefined) return "—";
    if (typeof value === "string") return value;
    if (Array.isArray(value) && value.every((v) => typeof v !== "object" || v === null)) {
      return value.length ? value.join(", ") : "none";
    }
    if (typeof value === "object") {
      return Object.keys(value).length ? el("pre", { class: "json", text: JSON.stringify(value, null, 2) }) : "none";
    }
    return String(value);
  }

  function turnCard(turn) {
    const who = turn.speaker || turn.role;
    const where = turn.session ? `session ${turn.session.id}` : `session ${turn.sessionId || ""}`;
    return el("div", { class: "card statement" },
      el("div", { class: "meta" }, `${who} · ${turn.at || "no time"} · ${where} · `, nodeLink(turn.id, "Turn")),
      el("blockquote", { text: turn.text }));
  }

  function spanCard(span) {
    return el("div", { class: "card span" },
      el("div", { class: "meta" }, nodeLink(span.docId, "Document", span.docTitle || span.docId),
        ` · lines ${span.startLine}–${span.endLine}`),
      el("pre", { text: (span.lines || []).join("\n") }));
  }

  function section(title, items, render, emptyText) {
    const body = items && items.length ? items.map(render) : [empty(emptyText || "none")];
    return el("section", {}, el("h3", { text: title }), ...body);
  }

  const PROVENANCE = {
    Requirement: {
      query: `query($id: ID!) { requirement(id: $id) { id text action item { id question }
        statements { id role speaker text at session { id startedAt } }
        facts { id text } spans { docId docTitle startLine endLine lines } } }`,
      render: (d) => {
        const r = d.requirement;
        if (!r) return [empty("not found")];
        return [
          el("p", { class: "req-text", text: goldText(r.text) }),
          r.action ? el("p", {}, el("strong", { text: "Required action: " }), r.action) : null,
          r.item ? el("p", {}, "Item ", nodeLink(r.item.id, "Item"), `: ${r.item.question}`) : null,
          el("div", { class: "side-by-side provenance" },
            section("User statements (U)", r.statements, turnCard, "no user statement"),
            section("Document spans (K)", r.spans, spanCard, "no knowledge span")),
          section("Facts (F)", r.facts, (f) => el("div", { class: "card" }, nodeLink(f.id, "Fact"), ` ${f.text}`)),
        ];
      },
    },
    Item: {
      query: `query($id: ID!) { item(id: $id) { id question askedAt questionType labels profile { id name }
        requirements { id text } supportDocuments { id title } historyDocuments { id title } } }`,
      render: (d) => {
        const i = d.item;
        if (!i) return [empty("not found")];
        return [
          el("p", { class: "question", text: i.question }),
          el("p", { class: "meta" }, `asked ${i.askedAt || "?"} · ${i.questionType || ""} · ${i.labels.join(", ")} · profile `,
            nodeLink(i.profile.id, "Profile", i.profile.name || i.profile.id)),
          section("Requirements", i.requirements, (r) => el("div", { class: "card" }, nodeLink(r.id, "Requirement"), ` ${goldText(r.text)}`)),
          section("Support documents", i.supportDocuments, (doc) => el("div", {}, nodeLink(doc.id, "Document", doc.title))),
          section("History documents", i.historyDocuments, (doc) => el("div", {}, nodeLink(doc.id, "Document", doc.title))),
        ];
      },
    },
    Turn: {
      query: `query($id: ID!) { turn(id: $id) { id role speaker text at sessionId
        exposures { docId docTitle via startLine endLine query } disclosedFacts { id text }
        memories { id system text } statedRequirements { id text } } }`,
      render: (d) => {
        const t = d.turn;
        if (!t) return [empty("not found")];
        return [
          turnCard(t),
          section("Exposed documents", t.exposures, (x) => el("div", {}, `${x.via} `,
            nodeLink(x.docId, "Document", x.docTitle), ` lines ${x.startLine}–${x.endLine}`)),
          section("Disclosed facts", t.disclosedFacts, (f) => el("div", {}, nodeLink(f.id, "Fact"), ` ${f.text}`)),
          section("Memory cards from this turn", t.memories, (m) => el("div", {}, nodeLink(m.id, "Memory"), ` (${m.system})`)),
          section("Requirements citing it", t.statedRequirements, (r) => el("div", {}, nodeLink(r.id, "Requirement"), ` ${goldText(r.text)}`)),
        ];
      },
    },
    Memory: {
      query: `query($id: ID!) { memory(id: $id) { id system text deleted sourceTurns { id role speaker text at sessionId }
        links { docId docTitle kind rank } } }`,
      render: (d) => {
        const m = d.memory;
        if (!m) return [empty("not found")];
        return [
          el("p", { text: m.text }),
          el("div", { class: "side-by-side provenance" },
            section("Source turns", m.sourceTurns, turnCard),
            section("Linked documents", m.links, (l) => el("div", {}, `${l.kind} #${l.rank} `, nodeLink(l.docId, "Document", l.docTitle)))),
        ];
      },
    },
    State: {
      query: `query($id: ID!) { state(id: $id) { id text concerns timeContext unresolved active
        sourceTurns { id role speaker text at sessionId } } }`,
      render: (d) => {
        const s = d.state;
        if (!s) return [empty("not found")];
        return [
          el("p", { text: s.text }),
          el("p", { class: "meta", text: `concerns ${s.concerns || "?"} · ${s.timeContext || ""} · ${s.active ? "active" : "superseded"}` }),
          section("Unresolved", s.unresolved, (u) => el("div", { text: u })),
          section("Source turns", s.sourceTurns, turnCard),
        ];
      },
    },
    Fact: {
      query: `query($id: ID!) { fact(id: $id) { id text private category
        disclosedIn { id role speaker text at sessionId } requirements { id text } } }`,
      render: (d) => {
        const f = d.fact;
        if (!f) return [empty("not found")];
        return [
          el("p", { text: f.text }),
          section("Disclosed in", f.disclosedIn, turnCard, "never disclosed in the history"),
          section("Used by requirements", f.requirements, (r) => el("div", {}, nodeLink(r.id, "Requirement"), ` ${goldText(r.text)}`)),
        ];
      },
    },
    Document: {
      query: `query($id: ID!) { document(id: $id) { id title url nLines lines(startLine: 1, endLine: 40) { lines truncated }
        exposures(first: 50) { turnId via startLine endLine query } supportsItems { id question }
        groundedRequirements { startLine endLine requirement { id text } } } }`,
      render: (d) => {
        const doc = d.document;
        if (!doc) return [empty("not found")];
        return [
          el("p", {}, el("strong", { text: doc.title }), ` · ${doc.nLines} lines`),
          section("Exposed in turns", doc.exposures, (x) => el("div", {}, nodeLink(x.turnId, "Turn"),
            ` ${x.via} lines ${x.startLine}–${x.endLine}${x.query ? ` (“${x.query}”)` : ""}`), "never exposed"),
          section("Supports items", doc.supportsItems, (i) => el("div", {}, nodeLink(i.id, "Item"), ` ${i.question}`)),
          section("Grounds requirements", doc.groundedRequirements, (g) => el("div", {},
            nodeLink(g.requirement.id, "Requirement"), ` lines ${g.startLine}–${g.endLine}`)),
          section("First lines", [doc.lines], (l) => el("div", { class: "card" }, el("pre", { text: l.lines.join("\n") }))),
        ];
      },
    },
  };

  // --- attempts, verdicts and runs as cards --------------------------------------------------------

  const FLAG_TEXT = {
    cut_by_length: "cut at max_tokens: the reply hit the output limit",
    looks_like_tool_call: "looks like a tool call: the answer text is a call the endpoint did not parse",
    not_an_answer: "not an answer: empty, or a JSON fragment that does not parse",
  };
  const VERDICT_TEXT = { pass: "pass", fail: "fail", needs_adjudication: "needs a person's ruling" };

  function verdictBadge(verdict) {
    const known = VERDICT_TEXT[verdict];
    return el("span", { class: `verdict verdict-${known ? verdict : "none"}`, text: known || "not judged" });
  }

  function field(name, ...value) {
    return el("div", { class: "field" }, el("span", { class: "field-name", text: name }), el("span", {}, ...value));
  }

  function exchangeLink(hash, gold) {
    if (typeof hash !== "string" || !/^[0-9a-f]{64}$/.test(hash)) return null;
    return el("p", { class: "exchange-line" }, el("a", { href: `/exchange#${hash}`, class: "exchange" }, "the exact request"),
      gold ? " (holds gold: opens with the API token)" : "");
  }

  function flagList(flags) {
    if (!flags || !flags.length) return el("span", { class: "muted", text: "none" });
    return el("ul", { class: "flags" }, ...flags.map((f) => el("li", { "data-flag": f, text: FLAG_TEXT[f] || f })));
  }

  function judgmentCard(j) {
    const score = j.score === null || j.score === undefined ? "" : ` · score ${j.score}`;
    return el("div", { class: "card judgment-card", "data-kind": j.kind },
      el("div", { class: "meta" }, `${j.kind} · judge ${j.judgeModel || "?"} · prompt ${j.promptName || "?"}`
        + `${j.promptVersion ? ` v${j.promptVersion}` : ""}${j.valid === false ? " · invalid reply" : ""}`),
      el("p", {}, verdictBadge(j.verdict), score, j.errorCategory ? ` · error category ${j.errorCategory}` : ""),
      field("rationale", goldText(j.rationale)),
      exchangeLink(j.exchange, true));
  }

  function attemptCard(a) {
    const answered = a.answer !== null && a.answer !== undefined && a.answer !== "";
    const tokens = `${(a.tokensIn ?? 0).toLocaleString()} in / ${(a.tokensOut ?? 0).toLocaleString()} out`;
    return el("div", { class: "card attempt-card" },
      a.item ? field("question", el("span", { class: "question" }, a.item.question), " ", nodeLink(a.item.id, "Item")) : null,
      field("answer", answered ? el("blockquote", { class: "answer", text: a.answer })
        : el("span", { class: "muted", text: `not answered${a.error ? `: ${a.error}` : ""}` })),
      field("verdict", verdictBadge(a.verdict)),
      field("method", `${a.method || "?"} · model ${a.answerModel || "?"} · run `, nodeLink(a.runId, "Run")),
      field("budget", `${a.rounds ?? "?"} tool round(s), ${a.turns ?? "?"} turn(s), finish ${a.finish || "—"}`),
      field("tokens", tokens, a.seconds !== null && a.seconds !== undefined ? ` · ${a.seconds.toFixed(1)} s` : ""),
      field("flags", flagList(a.flags)),
      exchangeLink(a.exchange, false));
  }

  function toolCallRow(t) {
    const what = t.recipe ? `${t.tool} (${t.recipe})` : t.tool;
    const outcome = t.ok ? `${t.nReturned ?? 0} returned` : `failed: ${t.error || "?"}`;
    return el("div", { class: "tool-call" }, `round ${t.round}, call ${t.ordinal + 1} · ${what} · ${outcome}`);
  }

  const ATTEMPT_QUERY = `query($run: ID!, $item: ID!) { attempt(run: $run, item: $item) { id runId itemId status answer
    rounds turns tokensIn tokensOut seconds error method finish answerModel verdict flags exchange
    item { id question } toolCalls { round ordinal tool ok error recipe nReturned }
    judgments { id kind verdict score errorCategory judgeModel promptName promptVersion valid rationale exchange } } }`;

  Object.assign(PROVENANCE, {
    Attempt: {
      query: ATTEMPT_QUERY,
      variables: (node) => ({ run: node.properties.run_id, item: node.properties.item_id }),
      render: (d) => {
        const a = d.attempt;
        if (!a) return [empty("not found")];
        return [
          attemptCard(a),
          section("Tool calls", a.toolCalls, toolCallRow, "no tool call"),
          section("Verdicts", a.judgments, judgmentCard, "not judged"),
        ];
      },
    },
    Judgment: {
      render: (_d, node) => {
        const p = node.properties || {};
        return [
          judgmentCard({
            kind: p.kind, verdict: p.verdict, score: p.score, errorCategory: p.error_category, judgeModel: p.judge_model,
            promptName: p.prompt_name, promptVersion: p.prompt_version, valid: p.valid, rationale: p.rationale,
            exchange: p.exchange,
          }),
          p.attempt_id ? el("p", {}, "Attempt ", nodeLink(p.attempt_id, "Attempt")) : null,
        ];
      },
    },
    Run: {
      query: `query($id: ID!) { run(id: $id) { id method dataset status batchId nItems attemptCount models
        attempts(first: 60) { id itemId status verdict tokensIn tokensOut flags } } }`,
      render: (d) => {
        const r = d.run;
        if (!r) return [empty("not found")];
        return [
          el("div", { class: "card run-card" },
            field("method", r.method), field("dataset", r.dataset || "?"), field("status", r.status || "?"),
            field("batch", r.batchId || "—"), field("attempts", `${r.attemptCount} of ${r.nItems ?? "?"} item(s)`),
            field("models", readableValue(r.models))),
          section("Attempts", r.attempts, (a) => el("div", { class: "attempt-row" }, nodeLink(a.id, "Attempt", a.itemId), " ",
            verdictBadge(a.verdict), a.flags && a.flags.length ? ` · ${a.flags.length} flag(s)` : ""), "no attempt yet"),
        ];
      },
    },
  });
  // Labels shown as cards: their raw properties fold away under the card.
  const CARD_LABELS = new Set(["Attempt", "Judgment", "Run"]);

  async function showDetails(node) {
    const pane = $("details");
    if (!node) return;
    const seq = ++state.detailSeq;
    const header = [
      el("h2", {}, chip(node.label), node.caption),
      el("div", { class: "node-id", text: node.id }),
      el("div", { class: "actions" },
        el("button", { type: "button", id: "expand-selected", onclick: () => expand(node.id, node.label).catch((e) => setStatus(e.message, true)) }, "expand"),
        el("button", { type: "button", onclick: () => navigator.clipboard && navigator.clipboard.writeText(`${location.origin}/browser#node=${encodeURIComponent(node.id)}`) }, "copy link")),
    ];
    pane.replaceChildren(...header, el("p", { class: "hint", text: "loading provenance …" }));
    const spec = PROVENANCE[node.label];
    let body = [];
    if (spec) {
      try {
        const data = spec.query ? await gql(spec.query, spec.variables ? spec.variables(node) : { id: node.id }) : null;
        body = await spec.render(data, node);
      } catch (error) {
        body = [el("p", { class: "empty", text: `provenance unavailable: ${error.message}` })];
      }
    }
    if (seq !== state.detailSeq) return;
    // Answers, tool calls and verdicts name the LLM exchange they came from: link the exact request (the cards
    // link it themselves).
    const exchange = (node.properties || {}).exchange || (node.properties || {}).answer_exchange;
    if (!CARD_LABELS.has(node.label)) {
      const link = exchangeLink(exchange, node.label === "Judgment");
      if (link) body.push(link);
    }
    const props = propsTable(node.properties, node.redactedFields);
    const tail = CARD_LABELS.has(node.label)
      ? [el("details", { class: "raw-props" }, el("summary", { text: "All properties" }), props)]
      : [el("h3", { text: "Properties" }), props];
    pane.replaceChildren(...header, el("section", { class: `provenance-${node.label}` }, ...body.filter(Boolean)), ...tail);
  }

  // --- search --------------------------------------------------------------------------------------

  let searchTimer = null;
  $("search-input").addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(runSearch, 200);
  });
  $("search-input").addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      clearTimeout(searchTimer);
      runSearch();
    } else if (event.key === "Escape") {
      $("search-results").hidden = true;
    }
  });

  async function runSearch() {
    const text = $("search-input").value.trim();
    const list = $("search-results");
    if (!text) {
      list.hidden = true;
      return;
    }
    const seq = ++state.searchSeq;
    try {
      const data = await gql(FIND, { text });
      if (seq !== state.searchSeq) return;
      const hits = data.findNodes;
      list.replaceChildren(...(hits.length ? hits.map((hit) => el("li", {
        role: "option", "data-node-id": hit.id, "data-label": hit.label,
        onclick: () => { list.hidden = true; openNode(hit.id, hit.label); },
      }, chip(hit.label), el("span", { class: "id", text: hit.id }), hit.caption)) : [el("li", { class: "empty", text: "no match" })]));
      list.hidden = false;
    } catch (error) {
      setStatus(error.message, true);
    }
  }
  document.addEventListener("click", (event) => {
    if (!event.target.closest(".search")) $("search-results").hidden = true;
  });

  // --- start page ----------------------------------------------------------------------------------

  const START = `query { datasets { name profiles items complete }
    runs(first: 10) { id method dataset status batchId nItems attemptCount } }`;
  const PROFILES = `query($dataset: String) { profiles(dataset: $dataset, first: 40) { id dataset name } }`;

  function showStart(visible) {
    $("start").hidden = !visible;
    if (visible) loadStart();
  }

  async function loadProfiles(dataset) {
    $("start-profiles-of").textContent = dataset ? `of ${dataset}` : "";
    try {
      const data = await gql(PROFILES, { dataset: dataset || null });
      const rows = data.profiles.map((p) => el("li", {}, nodeLink(p.id, "Profile", p.name ? `${p.name} (${p.id})` : p.id),
        dataset ? "" : ` · ${p.dataset}`));
      $("start-profiles").replaceChildren(rows.length ? el("ul", { class: "start-list" }, ...rows) : empty("no profile"));
    } catch (error) {
      $("start-profiles").replaceChildren(empty(`profiles unavailable: ${error.message}`));
    }
  }

  async function loadStart() {
    try {
      const data = await gql(START, {});
      const datasets = data.datasets.map((d) => el("li", { "data-dataset": d.name },
        el("button", { type: "button", class: "linkish", onclick: () => loadProfiles(d.name) }, d.name),
        ` · ${d.profiles} profile(s), ${d.items} item(s)`, d.complete ? "" : " · ingest not complete"));
      $("start-datasets").replaceChildren(datasets.length ? el("ul", { class: "start-list" }, ...datasets)
        : empty("nothing ingested yet: ./colabench ingest sample"));
      const runs = data.runs.map((r) => el("li", { "data-run-id": r.id }, nodeLink(r.id, "Run", `${r.method} on ${r.dataset || "?"}`),
        ` · ${r.status || "?"} · ${r.attemptCount} attempt(s) of ${r.nItems ?? "?"} item(s)`,
        el("span", { class: "muted", text: ` · ${r.id}` })));
      $("start-runs").replaceChildren(runs.length ? el("ul", { class: "start-list" }, ...runs)
        : empty("no run yet: ./colabench run --dataset sample --items 3"));
    } catch (error) {
      $("start-datasets").replaceChildren(empty(`the graph is unavailable: ${error.message}`));
    }
    loadProfiles(null);
  }

  $("start-search").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("start-search-input").value.trim();
    if (!text) return;
    $("search-input").value = text;
    runSearch();
    $("search-input").focus();
  });

  // --- deep links ----------------------------------------------------------------------------------

  function openFromHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    const id = params.get("node");
    if (id) openNode(id, params.get("label"));
    return Boolean(id);
  }
  window.addEventListener("hashchange", openFromHash);
  renderLegend();
  if (!openFromHash()) showStart(true);
})();
