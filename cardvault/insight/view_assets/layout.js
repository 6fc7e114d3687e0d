// cardvault view: where each card sits. Categories are discs, packed in rings around the
// largest; inside a category the cards are grouped by their most shared tag, each group a disc
// of its own; inside a group the best linked cards sit in the middle. A short pass of link
// springs then pulls linked cards towards each other while a pull home keeps the groups whole
// and a grid keeps cards from covering each other. Linear in cards and links per pass, and the
// same page always lays out the same way (no randomness).
"use strict";
const CardvaultLayout = (function () {
  const SPACING = 13;   // between neighbouring cards in a group
  const GAP = 16;       // between groups, and between categories
  const PASSES = 80;

  // Discs {r} placed without overlap, largest in the middle, the rest on rings around it.
  // Sets each disc's x, y (relative to the centre); returns the radius of the whole.
  function pack(discs) {
    discs.sort(function (a, b) { return b.r - a.r || a.order - b.order; });
    if (!discs.length) return 0;
    discs[0].x = 0; discs[0].y = 0;
    let outer = discs[0].r, i = 1;
    while (i < discs.length) {
      const widest = discs[i].r, ring = outer + GAP + widest, first = i;
      let angle = 0;
      while (i < discs.length) {
        const need = 2 * Math.asin(Math.min(1, (discs[i].r + GAP / 2) / ring));
        if (i > first && angle + need > 2 * Math.PI) break;
        discs[i].angle = angle + need / 2;
        angle += need;
        i++;
      }
      const spare = Math.max(0, 2 * Math.PI - angle) / (i - first);
      for (let k = first; k < i; k++) {
        const a = discs[k].angle + spare * (k - first + 0.5);
        discs[k].x = ring * Math.cos(a); discs[k].y = ring * Math.sin(a);
      }
      outer = ring + widest;
    }
    return outer;
  }

  // The tag a card is grouped by: of its tags, the one on most cards of its category (ties: by
  // name); none when no tag of it is on another card of its category.
  function groupTags(nodes) {
    const counts = new Map();
    function key(node, tag) { return node.cat + "\u0000" + tag; }
    nodes.forEach(function (node) { node.tags.forEach(function (t) { counts.set(key(node, t), (counts.get(key(node, t)) || 0) + 1); }); });
    return nodes.map(function (node) {
      let best = "", most = 1;
      node.tags.forEach(function (t) {
        const c = counts.get(key(node, t));
        if (c > most || (c === most && best && t < best)) { best = t; most = c; }
      });
      return best;
    });
  }

  // Each card's home (hx, hy) and group tag; the groups and the categories' discs (for labels).
  function homes(nodes, categories) {
    const tags = groupTags(nodes);
    const cats = categories.map(function (c, k) { return { name: c.name, cat: k, groups: new Map(), order: k }; });
    nodes.forEach(function (node) {
      const groups = cats[node.cat].groups, key = tags[node.i];
      node.group = key;
      if (!groups.has(key)) groups.set(key, { tag: key, members: [], order: groups.size });
      groups.get(key).members.push(node);
    });
    const allGroups = [];
    const used = cats.filter(function (c) { return c.groups.size; });
    used.forEach(function (cat) {
      const groups = Array.from(cat.groups.values());
      groups.forEach(function (group) {
        group.members.sort(function (a, b) { return b.deg - a.deg || a.i - b.i; });
        group.r = SPACING * Math.sqrt(group.members.length) + 6;
        group.cat = cat.cat;
        allGroups.push(group);
      });
      cat.r = pack(groups) + GAP / 2;
      cat.list = groups;
    });
    pack(used);
    used.forEach(function (cat) {
      cat.list.forEach(function (group) {
        group.x += cat.x; group.y += cat.y;
        group.members.forEach(function (node, j) {
          const r = SPACING * Math.sqrt(j + (j ? 0.5 : 0)), a = j * 2.39996;
          node.hx = group.x + r * Math.cos(a); node.hy = group.y + r * Math.sin(a);
          node.x = node.hx; node.y = node.hy;
        });
      });
    });
    return { groups: allGroups, categories: used };
  }

  function springs(nodes, links) {
    for (let pass = 0; pass < PASSES; pass++) {
      links.forEach(function (l) {
        const a = nodes[l[0]], b = nodes[l[1]];
        const dx = b.x - a.x, dy = b.y - a.y, d = Math.sqrt(dx * dx + dy * dy) || 1;
        const f = 0.02 * Math.max(0, d - 3 * SPACING) / d;
        a.vx += dx * f; a.vy += dy * f; b.vx -= dx * f; b.vy -= dy * f;
      });
      nodes.forEach(function (node) {
        node.vx += (node.hx - node.x) * 0.08; node.vy += (node.hy - node.y) * 0.08;
        node.x += node.vx; node.y += node.vy;
        node.vx *= 0.6; node.vy *= 0.6;
      });
      separate(nodes);
    }
  }

  // Push apart cards closer than SPACING * 0.8, looking only at neighbouring grid cells.
  function separate(nodes) {
    const size = SPACING, least = SPACING * 0.8, grid = new Map();
    function cellKey(x, y) { return (x + 1048576) * 2097152 + (y + 1048576); }  // exact in a double
    nodes.forEach(function (node) {
      const key = cellKey(Math.floor(node.x / size), Math.floor(node.y / size));
      const cell = grid.get(key);
      if (cell) cell.push(node); else grid.set(key, [node]);
    });
    nodes.forEach(function (node) {
      const gx = Math.floor(node.x / size), gy = Math.floor(node.y / size);
      for (let x = gx - 1; x <= gx + 1; x++) {
        for (let y = gy - 1; y <= gy + 1; y++) {
          const cell = grid.get(cellKey(x, y));
          if (!cell) continue;
          cell.forEach(function (other) {
            if (other.i <= node.i) return;
            const dx = other.x - node.x, dy = other.y - node.y, d = Math.sqrt(dx * dx + dy * dy);
            if (d >= least) return;
            const push = (least - d) / 2 / (d || 1);
            const ux = d ? dx : 1, uy = d ? dy : 0;
            node.x -= ux * push; node.y -= uy * push; other.x += ux * push; other.y += uy * push;
          });
        }
      }
    });
  }

  function layout(nodes, links, categories) {
    nodes.forEach(function (node) { node.vx = 0; node.vy = 0; });
    const placed = homes(nodes, categories);
    springs(nodes, links);
    return placed;
  }

  return { layout: layout };
})();
