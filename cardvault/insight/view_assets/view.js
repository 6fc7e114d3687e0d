// cardvault view: draws the card graph (laid out by layout.js), filters by title, opens cards.
// Reads only the JSON in #view-data; never inserts markup it did not build itself (every
// text goes in through textContent; card bodies were rendered inert by cardvault).
"use strict";
(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const data = JSON.parse(document.getElementById("view-data").textContent);
  const nodes = data.nodes.map(function (n, i) {
    return { i: i, slug: n[0], topic: n[1], cat: n[2], tags: n[3], flags: n[4], aliases: n[5],
      path: n[6], x: 0, y: 0, vx: 0, vy: 0, deg: 0 };
  });
  const ARCHIVED = 1, STALE = 2, PROMOTED = 4;
  const links = data.links;  // [source index, target index]
  const names = new Map();   // card name (slug or alias) -> node index; slugs win
  nodes.forEach(function (n) { if (!names.has(n.slug)) names.set(n.slug, n.i); });
  nodes.forEach(function (n) { n.aliases.forEach(function (a) { if (!names.has(a)) names.set(a, n.i); }); });
  nodes.forEach(function (n) {  // a card's address: its slug, or its path where two share a slug
    names.set(n.path, n.i);
    n.ref = names.get(n.slug) === n.i ? n.slug : n.path;
  });
  const out = nodes.map(function () { return []; });
  const back = nodes.map(function () { return []; });
  links.forEach(function (l) { out[l[0]].push(l[1]); back[l[1]].push(l[0]); nodes[l[0]].deg++; nodes[l[1]].deg++; });

  // ---- drawing ----
  const svg = document.getElementById("graph");
  const items = Array.prototype.slice.call(document.querySelectorAll("#list li"));
  const edges = document.createElementNS(SVG, "path");
  const near = document.createElementNS(SVG, "path");
  const dots = document.createElementNS(SVG, "g");
  const labels = document.createElementNS(SVG, "g");
  edges.setAttribute("class", "edges");
  near.setAttribute("class", "edges near");
  let box = { x: -100, y: -100, w: 200, h: 200 };
  let placed = { groups: [], categories: [] };
  const OTHER = "#9ca3af";
  const LABEL_CHARS = 34;   // a longer title is cut in its label (its tooltip and the list show it whole)
  const ALL_LABELLED = 60;  // up to this many cards every card is labelled; past it the best linked

  function radius(node) { return 4 + Math.min(6, Math.sqrt(node.deg) * 1.4) + (node.flags & PROMOTED ? 2 : 0); }

  // A tag's palette slot from its name (FNV-1a), so a colour never follows sizes.
  function slotOf(name, size) {
    let h = 2166136261;
    for (let k = 0; k < name.length; k++) { h ^= name.charCodeAt(k); h = Math.imul(h, 16777619) >>> 0; }
    return h % size;
  }

  // Colours: by category (chosen by cardvault from the names); in a vault of one category with
  // tag groups, by group: the largest groups get a colour each, from their tags' names.
  function colours() {
    const palette = data.palette;
    const tagged = placed.groups.filter(function (g) { return g.tag && g.members.length > 1; });
    if (data.categories.length > 1 || tagged.length < 2) {
      return { of: function (node) { return data.categories[node.cat].colour; },
        legend: data.categories.map(function (c) { return [c.name, c.colour]; }) };
    }
    const big = tagged.sort(function (a, b) { return b.members.length - a.members.length || (a.tag < b.tag ? -1 : 1); })
      .slice(0, palette.length - 1).sort(function (a, b) { return a.tag < b.tag ? -1 : 1; });
    const colour = new Map(), taken = new Set();
    big.forEach(function (g) {
      let slot = slotOf(g.tag, palette.length);
      while (taken.has(slot)) slot = (slot + 1) % palette.length;
      taken.add(slot); colour.set(g.tag, palette[slot]);
    });
    const legend = big.map(function (g) { return ["#" + g.tag, colour.get(g.tag)]; });
    legend.push(["other tags", OTHER]);
    return { of: function (node) { return colour.get(node.group) || OTHER; }, legend: legend };
  }

  function draw() {
    let path = "";
    links.forEach(function (l) {
      const a = nodes[l[0]], b = nodes[l[1]];
      path += "M" + a.x.toFixed(1) + " " + a.y.toFixed(1) + "L" + b.x.toFixed(1) + " " + b.y.toFixed(1);
    });
    edges.setAttribute("d", path);
    // the more links, the fainter each: 0.55 up to 300 links, 0.14 at 5,000
    const faint = 0.55 * Math.sqrt(300 / Math.max(1, links.length));
    edges.style.strokeOpacity = Math.max(0.08, Math.min(0.55, faint)).toFixed(2);
    const paint = colours();
    nodes.forEach(function (node) {
      const c = document.createElementNS(SVG, "circle");
      c.setAttribute("cx", node.x.toFixed(1));
      c.setAttribute("cy", node.y.toFixed(1));
      c.setAttribute("r", radius(node).toFixed(1));
      c.setAttribute("fill", paint.of(node));
      c.setAttribute("stroke-width", node.flags & PROMOTED ? "2.5" : "1");
      const kinds = [];
      if (node.flags & PROMOTED) kinds.push("promoted");
      if (node.flags & STALE) kinds.push("stale");
      if (node.flags & ARCHIVED) kinds.push("archived");
      c.setAttribute("class", kinds.join(" "));
      c.dataset.i = node.i;
      const title = document.createElementNS(SVG, "title");
      title.textContent = node.topic + (kinds.length ? " (" + kinds.join(", ") + ")" : "");
      c.appendChild(title);
      node.circle = c;
      dots.appendChild(c);
    });
    svg.append(edges, near, dots, labels);
    legend(paint.legend);
    if (data.categories.length < 2) {  // the list's dots follow the graph's colours
      items.forEach(function (li, i) { li.querySelector(".dot").style.background = paint.of(nodes[i]); });
    }
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    nodes.forEach(function (p) { x0 = Math.min(x0, p.x); y0 = Math.min(y0, p.y); x1 = Math.max(x1, p.x); y1 = Math.max(y1, p.y); });
    const pad = Math.max(40, (x1 - x0) * 0.08);
    if (nodes.length) box = { x: x0 - pad, y: y0 - pad, w: x1 - x0 + 2.5 * pad, h: y1 - y0 + 2 * pad };
    fit();
  }

  function legend(entries) {
    const list = document.getElementById("legend-colours");
    entries.forEach(function (entry) {
      const span = document.createElement("span"), dot = document.createElementNS(SVG, "svg");
      dot.setAttribute("width", "9"); dot.setAttribute("height", "9");
      const c = document.createElementNS(SVG, "circle");
      c.setAttribute("cx", "4.5"); c.setAttribute("cy", "4.5"); c.setAttribute("r", "4.5"); c.setAttribute("fill", entry[1]);
      dot.appendChild(c);
      span.append(dot, document.createTextNode(entry[0]));
      list.appendChild(span);
    });
  }

  function fit() { svg.setAttribute("viewBox", [box.x, box.y, box.w, box.h].map(function (v) { return v.toFixed(1); }).join(" ")); }

  function scale() {  // graph units per screen pixel (the viewBox is fitted, aspect kept)
    const rect = svg.getBoundingClientRect();
    return Math.max(box.w / (rect.width || 1), box.h / (rect.height || 1));
  }

  // Labels in order of importance, each drawn only where it covers no label drawn before.
  function label(cards, hubs, few) {
    labels.textContent = "";
    const unit = scale(), taken = [];
    // the part of the graph on screen: the viewBox, widened on one axis to the pane's shape
    const rect = svg.getBoundingClientRect();
    const seenW = Math.max(box.w, (rect.width || 1) * unit), seenH = Math.max(box.h, (rect.height || 1) * unit);
    const leftmost = box.x - (seenW - box.w) / 2, right = leftmost + seenW;
    const top = box.y - (seenH - box.h) / 2, bottom = top + seenH;
    function put(text, x, y, size, kind, centred, before) {
      if (text.length > LABEL_CHARS) text = text.slice(0, LABEL_CHARS - 1) + "\u2026";
      const width = text.length * size * 0.62 * unit, height = size * 1.2 * unit;
      let left = centred ? x - width / 2 : x;
      if (!centred && left + width > right) left = before - width;  // no room right: on its left
      if (left < leftmost || left + width > right || y - height < top || y > bottom) return;  // never cut by the edge
      const r = { x0: left, y0: y - height, x1: left + width, y1: y };
      if (taken.some(function (o) { return r.x0 < o.x1 && o.x0 < r.x1 && r.y0 < o.y1 && o.y0 < r.y1; })) return;
      taken.push(r);
      const t = document.createElementNS(SVG, "text");
      t.setAttribute("x", left.toFixed(1)); t.setAttribute("y", (y - 0.25 * height).toFixed(1));
      t.setAttribute("font-size", (size * unit).toFixed(2));
      t.setAttribute("class", kind);
      t.textContent = text;
      labels.appendChild(t);
    }
    function card(node) {
      const gap = radius(node) + 2 * unit;
      put(node.topic, node.x + gap, node.y + 4 * unit, 11, "card", false, node.x - gap);
    }
    function groups() {
      placed.groups.slice().sort(function (a, b) { return b.members.length - a.members.length; }).forEach(function (g) {
        if (g.tag && g.members.length > 2) put("#" + g.tag, g.x, g.y - g.r, 10.5, "group", true);
      });
    }
    cards.forEach(card);
    if (data.categories.length > 1) {
      placed.categories.forEach(function (cat) {
        let high = Infinity;
        cat.list.forEach(function (g) { g.members.forEach(function (n) { high = Math.min(high, n.y - radius(n)); }); });
        put(cat.name, cat.x, Math.max(high - 6 * unit, top + 16 * unit), 13, "category", true);
      });
    }
    if (few) { hubs.forEach(card); groups(); } else { groups(); hubs.forEach(card); }
  }
  // ---- zoom and pan ----
  svg.addEventListener("wheel", function (event) {
    event.preventDefault();
    const rect = svg.getBoundingClientRect();
    const scale = event.deltaY > 0 ? 1.2 : 1 / 1.2;
    const mx = box.x + ((event.clientX - rect.left) / rect.width) * box.w;
    const my = box.y + ((event.clientY - rect.top) / rect.height) * box.h;
    box = { x: mx - (mx - box.x) * scale, y: my - (my - box.y) * scale, w: box.w * scale, h: box.h * scale };
    fit(); relabel();
  }, { passive: false });
  let drag = null;
  svg.addEventListener("pointerdown", function (event) {
    drag = { x: event.clientX, y: event.clientY, box: box, moved: false };
    svg.classList.add("dragging");
  });
  window.addEventListener("pointermove", function (event) {
    if (!drag) return;
    const rect = svg.getBoundingClientRect();
    const dx = event.clientX - drag.x, dy = event.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    box = { x: drag.box.x - (dx / rect.width) * drag.box.w, y: drag.box.y - (dy / rect.height) * drag.box.h, w: drag.box.w, h: drag.box.h };
    fit();
  });
  window.addEventListener("pointerup", function (event) {
    if (!drag) return;
    const moved = drag.moved;
    drag = null;
    svg.classList.remove("dragging");
    const target = event.target;
    if (!moved && target instanceof SVGCircleElement && target.dataset.i) go({ card: nodes[+target.dataset.i].ref });
  });

  // ---- filter, selection, tabs: all state lives in the address's #fragment ----
  const filter = document.getElementById("filter");
  const count = document.getElementById("count");
  let state = { q: "", card: "", tab: "" };
  let current = -1;
  let matches = nodes;

  function hits(node, words) {
    const title = (node.topic + " " + node.slug + " " + node.aliases.join(" ")).toLowerCase();
    return words.every(function (w) {
      return w[0] === "#" && w.length > 1 ? node.tags.indexOf(w.slice(1)) >= 0 : title.indexOf(w) >= 0;
    });
  }

  function applyFilter(q) {
    const words = q.toLowerCase().split(/\s+/).filter(Boolean);
    matches = [];
    nodes.forEach(function (node) {
      const hit = hits(node, words);
      if (hit) matches.push(node);
      items[node.i].hidden = !hit;
      if (node.circle) node.circle.classList.toggle("dim", words.length > 0 && !hit);
    });
    const archived = nodes.filter(function (n) { return n.flags & ARCHIVED; }).length;
    count.textContent = words.length
      ? matches.length + " of " + nodes.length + " cards match"
      : nodes.length + (nodes.length === 1 ? " card" : " cards") + (archived ? " (" + archived + " archived)" : "");
    document.body.dataset.visible = String(matches.length);
    relabel();
  }

  function relabel() {  // the open card and its neighbours, then matches, then the best linked
    const shown = [];
    if (current >= 0) shown.push(nodes[current]);
    if (current >= 0) out[current].concat(back[current]).forEach(function (j) { shown.push(nodes[j]); });
    if (matches.length < nodes.length) shown.push.apply(shown, matches.slice(0, 200));
    const few = nodes.length <= ALL_LABELLED;
    const hubs = matches.length < nodes.length ? [] : nodes.filter(function (n) { return few || n.deg > 0; })
      .sort(function (a, b) { return b.deg - a.deg || a.i - b.i; }).slice(0, few ? ALL_LABELLED : nodes.length > 1000 ? 12 : 25);
    label(shown, hubs, few);
  }

  function showCard(index) {
    if (current >= 0) {
      document.getElementById("card-" + current).hidden = true;
      items[current].classList.remove("current");
      if (nodes[current].circle) nodes[current].circle.classList.remove("current");
    }
    current = index;
    document.getElementById("reader-hint").hidden = index >= 0;
    let path = "";
    if (index >= 0) {
      const article = document.getElementById("card-" + index);
      article.hidden = false;
      items[index].classList.add("current");
      if (nodes[index].circle) nodes[index].circle.classList.add("current");
      const dot = article.querySelector(".meta .dot");
      if (dot && data.categories.length < 2) dot.style.background = nodes[index].circle.getAttribute("fill");
      markBrokenLinks(article);
      nearCards(article, index);
      out[index].concat(back[index]).forEach(function (j) {
        const a = nodes[index], b = nodes[j];
        path += "M" + a.x.toFixed(1) + " " + a.y.toFixed(1) + "L" + b.x.toFixed(1) + " " + b.y.toFixed(1);
      });
    }
    near.setAttribute("d", path);
    relabel();
  }

  function markBrokenLinks(article) {
    article.querySelectorAll("a.wikilink").forEach(function (a) {
      if (!names.has(a.dataset.key)) { a.classList.add("broken"); a.title = "no card is named " + a.dataset.key; }
    });
  }

  function nearCards(article, index) {
    const box = article.querySelector(".near-cards");
    if (!box || box.dataset.done) return;
    box.dataset.done = "1";
    [["Links to", out[index]], ["Linked from", back[index]]].forEach(function (part) {
      if (!part[1].length) return;
      const h = document.createElement("h3"); h.textContent = part[0] + " (" + part[1].length + ")";
      const ul = document.createElement("ul");
      part[1].forEach(function (j) {
        const li = document.createElement("li"), a = document.createElement("a");
        a.href = "#card=" + encodeURIComponent(nodes[j].ref);
        a.textContent = nodes[j].topic;
        li.appendChild(a); ul.appendChild(li);
      });
      box.append(h, ul);
    });
  }

  function showTab(tab) {
    document.querySelectorAll("#tabs a").forEach(function (a) { a.classList.toggle("on", a.dataset.tab === tab); });
    document.querySelectorAll(".tab").forEach(function (t) { t.hidden = t.id !== "tab-" + tab; });
  }

  function readHash() {  // only the parts the address names: a link to #card=x keeps the filter
    const params = new URLSearchParams(location.hash.slice(1)), found = {};
    ["q", "card", "tab"].forEach(function (key) { if (params.has(key)) found[key] = params.get(key); });
    return found;
  }

  function writeHash(next) {
    const params = new URLSearchParams();
    if (next.q) params.set("q", next.q);
    if (next.card) params.set("card", next.card);
    if (next.tab) params.set("tab", next.tab);
    const text = params.toString();
    history.replaceState(null, "", text ? "#" + text : location.pathname + location.search);
  }

  function apply(next) {
    if (next.q !== state.q || filter.value !== next.q) { filter.value = next.q; applyFilter(next.q); }
    const index = next.card && names.has(next.card) ? names.get(next.card) : -1;
    if (index !== current) showCard(index);
    showTab(next.tab || "card");
    state = next;
    writeHash(next);
  }

  function go(change) {  // a click or keystroke: change part of the state
    const next = Object.assign({}, state, change);
    if (change.card) next.tab = "card";
    apply(next);
  }

  filter.addEventListener("input", function () { go({ q: filter.value }); });
  window.addEventListener("hashchange", function () { go(readHash()); });
  document.getElementById("tabs").addEventListener("click", function (event) {
    const a = event.target.closest("a");
    if (a) { event.preventDefault(); go({ tab: a.dataset.tab }); }
  });

  const started = performance.now();
  placed = CardvaultLayout.layout(nodes, links, data.categories);
  const layoutMs = performance.now() - started;
  draw();
  document.body.dataset.nodes = String(dots.childNodes.length);
  document.body.dataset.links = String(links.length);
  document.body.dataset.layoutMs = String(Math.round(layoutMs));
  const empty = document.getElementById("empty-graph");
  if (empty) empty.hidden = nodes.length > 0;
  applyFilter("");
  apply(Object.assign({}, state, readHash()));
  window.addEventListener("resize", relabel);
  document.body.dataset.ready = "1";
})();
