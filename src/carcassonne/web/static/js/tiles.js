// Tile drawings computed from the engine's tile geometry (GET /api/tiles), no image assets.
//
// A tile is a 100 x 100 square in board orientation. From an orientation's edges and segments we
// build a small model: city regions (standard shapes by which edges a city touches), roads and
// rivers as curves between edge midpoints, centre features (monastery, garden, betting office)
// placed where nothing else runs, field dividers where an office separates fields, and one spot
// per segment where a figure stands. The same model serves drawing and clicking, so a figure is
// always drawn where the player clicked to place it.

import { svg } from "./svg.js";

const EDGES = ["N", "E", "S", "W"];
const HALVES = ["NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR"];
const MID = [[50, 0], [100, 50], [50, 100], [0, 50]];
// Where each half-edge meets the tile border (25% / 75% along its edge).
const HALF_POINT = [[25, 0], [75, 0], [100, 25], [100, 75], [75, 100], [25, 100], [0, 75], [0, 25]];
// Boundary point between consecutive half-edges i and i+1 (clockwise): edge middles and corners.
const BETWEEN = [[50, 0], [100, 0], [100, 50], [100, 100], [50, 100], [0, 100], [0, 50], [0, 0]];

const ROAD_HALF_WIDTH = 6;
const RIVER_HALF_WIDTH = 8;
const CENTRE_RADIUS = { monastery: 16, "betting-office": 12, garden: 11 };

let TILES = {};

/** Load the tile geometry once; every drawing afterwards is synchronous. */
export async function loadTiles() {
  const response = await fetch("/api/tiles");
  if (!response.ok) throw new Error(`cannot load tiles: HTTP ${response.status}`);
  TILES = (await response.json()).tiles;
  return TILES;
}

/** Every tile id, in data order (the base set, then each expansion's: /api/tiles). */
export function tileIds() {
  return Object.keys(TILES);
}

export function tileInfo(tileId) {
  return TILES[tileId];
}

// ---------------------------------------------------------------------------------- geometry

/** Rotate a point k quarter turns clockwise about the tile centre. */
function rot([x, y], k) {
  for (let i = 0; i < ((k % 4) + 4) % 4; i++) [x, y] = [100 - y, x];
  return [x, y];
}

const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1]);

function quad(a, c, b, steps = 12) {
  const pts = [];
  for (let i = 0; i <= steps; i++) {
    const t = i / steps;
    const u = 1 - t;
    pts.push([u * u * a[0] + 2 * u * t * c[0] + t * t * b[0], u * u * a[1] + 2 * u * t * c[1] + t * t * b[1]]);
  }
  return pts;
}

function distToPolyline(p, pts) {
  let best = Infinity;
  for (let i = 1; i < pts.length; i++) {
    const [ax, ay] = pts[i - 1];
    const [bx, by] = pts[i];
    const dx = bx - ax;
    const dy = by - ay;
    const len2 = dx * dx + dy * dy || 1;
    const t = Math.max(0, Math.min(1, ((p[0] - ax) * dx + (p[1] - ay) * dy) / len2));
    best = Math.min(best, Math.hypot(p[0] - ax - t * dx, p[1] - ay - t * dy));
  }
  return best;
}

// City shapes in a canonical orientation; `k` quarter turns put them in place. Each has the
// region's outline, its wall (the inner border), a point-in-region test, the figure spot and
// where a coat of arms goes.

/** A city on one edge (N) reaching `depth` into the tile at the edge's middle. */
function capShape(depth, spot, arms) {
  return {
    canon: [0],
    outline: `M0,0 L100,0 Q50,${2 * depth} 0,0 Z`,
    walls: [[[100, 0], [50, 2 * depth], [0, 0]]],
    inside: ([x, y]) => y < (4 * depth * x * (100 - x)) / 10000,
    spot,
    arms,
  };
}

const CITY_SHAPES = {
  // one edge (N): a cap
  cap: capShape(30, [50, 13], [78, 9]),
  // one edge (N) of a tile whose band city runs past it: a shallow cap, leaving a strip of field
  // between the two (the enclosed fields of traders_builders/03 and /04)
  shallowCap: capShape(15, [50, 8], [80, 6]),
  // two adjacent edges (W and N): a corner
  corner: {
    canon: [0, 3],
    outline: "M0,0 L100,0 Q35,35 0,100 Z",
    walls: [[[100, 0], [35, 35], [0, 100]]],
    inside: ([x, y]) => {
      const t = (1 - (x - y) / 100) / 2;
      return x + y < 100 - 60 * t * (1 - t);
    },
    spot: [30, 27],
    arms: [12, 14],
  },
  // two opposite edges (E and W): a band
  band: {
    canon: [1, 3],
    outline: "M0,0 Q50,50 100,0 L100,100 Q50,50 0,100 Z",
    walls: [[[0, 0], [50, 50], [100, 0]], [[0, 100], [50, 50], [100, 100]]],
    inside: ([x, y]) => {
      const depth = x * (100 - x) / 100;
      return y > depth && y < 100 - depth;
    },
    spot: [50, 50],
    arms: [16, 50],
  },
  // three edges (N, E, W): everything but a bay at the south
  three: {
    canon: [0, 1, 3],
    outline: "M0,0 L100,0 L100,100 Q50,40 0,100 Z",
    walls: [[[100, 100], [50, 40], [0, 100]]],
    inside: ([x, y]) => y < 100 - 1.2 * x * (100 - x) / 100,
    spot: [50, 36],
    arms: [22, 22],
  },
  full: {
    canon: [0, 1, 2, 3],
    outline: "M0,0 H100 V100 H0 Z",
    walls: [],
    inside: () => true,
    spot: [50, 50],
    arms: [26, 26],
  },
};

/**
 * The shape and rotation (quarter turns) that draw a city touching `edges` (indices); `shallow`
 * picks the shallow cap for a one-edge city.
 */
function cityShape(edges, shallow) {
  const want = [...edges].sort().join();
  for (const [name, shape] of Object.entries(CITY_SHAPES)) {
    if (shape.canon.length !== edges.length || (name === "shallowCap") !== (shallow && edges.length === 1)) continue;
    for (let k = 0; k < 4; k++) {
      const turned = shape.canon.map((e) => (e + k) % 4).sort().join();
      if (turned === want) return { shape, k };
    }
  }
  throw new Error(`no city shape for edges ${edges}`);
}

function cityModel(segment, index, shallow) {
  const edges = segment.edges.map((e) => EDGES.indexOf(e));
  const { shape, k } = cityShape(edges, shallow);
  return {
    index,
    k,
    outline: shape.outline,
    walls: shape.walls.map(([a, c, b]) => quad(rot(a, k), rot(c, k), rot(b, k))),
    inside: (p) => shape.inside(rot(p, -k)),
    spot: rot(shape.spot, k),
    arms: rot(shape.arms, k),
    coatOfArms: segment.coat_of_arms,
  };
}

/** Points of a road or river between two edges (or from an edge to `end`). */
function track(edges, end) {
  const a = MID[edges[0]];
  if (edges.length === 1) return [a, end];
  const b = MID[edges[1]];
  if ((edges[0] + 2) % 4 === edges[1]) return [a, b];
  return quad(a, [50, 50], b);
}

/**
 * Choose where a centre feature goes: as near the middle as possible while keeping clear of
 * cities, through-roads, rivers and features already placed. `pull` > 0 draws it towards
 * `anchors` (an office towards the roads ending at it), < 0 pushes it away (a monastery whose
 * road crosses a river on a bridge).
 */
function freePoint(model, radius, anchors = [], pull = 0, cap = 10, allowed = () => true) {
  let best = null;
  let bestScore = -Infinity;
  for (let x = 15; x <= 85; x += 2.5) {
    for (let y = 15; y <= 85; y += 2.5) {
      const p = [x, y];
      if (!allowed(p)) continue;
      let clear = Math.min(x, y, 100 - x, 100 - y) - radius;
      for (const city of model.cities) {
        if (city.inside(p)) clear = -100;
        for (const wall of city.walls) clear = Math.min(clear, distToPolyline(p, wall) - radius);
      }
      for (const t of model.obstacles) clear = Math.min(clear, distToPolyline(p, t.pts) - t.width - radius);
      for (const c of model.centres) clear = Math.min(clear, dist(p, c.at) - c.radius - radius);
      let score = Math.min(clear, cap) - 0.15 * dist(p, [50, 50]);
      for (const a of anchors) score += pull * dist(p, a);
      if (score > bestScore + 1e-9) {
        bestScore = score;
        best = p;
      }
    }
  }
  return best;
}

/** Clearance of a figure spot from everything drawn on the tile (negative = on something). */
function clearance(model, p, own) {
  let clear = Math.min(p[0], p[1], 100 - p[0], 100 - p[1]) - 6;
  for (const city of model.cities) {
    if (city.inside(p)) return -100;
    for (const wall of city.walls) clear = Math.min(clear, distToPolyline(p, wall) - 4);
  }
  for (const t of [...model.obstacles, ...model.spurs, ...model.dividers]) {
    clear = Math.min(clear, distToPolyline(p, t.pts) - t.width - 3);
  }
  for (const c of model.centres) clear = Math.min(clear, dist(p, c.at) - c.radius - 4);
  for (const s of model.taken) if (s !== own) clear = Math.min(clear, dist(p, s) - 14);
  return clear;
}

/**
 * A field's figure spot: walk from each of its half-edges towards the field's middle, never
 * across a road, river, wall or divider, and take the point with the most room.
 */
function fieldSpot(model, halves) {
  if (!halves.length) return [50, 50]; // a field enclosed in the middle of the tile (ic/C)
  const inset = halves.map((h) => {
    const [x, y] = HALF_POINT[h];
    return [x + (x === 0 ? 11 : x === 100 ? -11 : 0), y + (y === 0 ? 11 : y === 100 ? -11 : 0)];
  });
  const centroid = [
    inset.reduce((s, p) => s + p[0], 0) / inset.length,
    inset.reduce((s, p) => s + p[1], 0) / inset.length,
  ];
  let best = inset[0];
  let bestScore = -Infinity;
  for (const start of inset) {
    for (let s = 0; s <= 1.0001; s += 0.1) {
      const p = [start[0] + s * (centroid[0] - start[0]), start[1] + s * (centroid[1] - start[1])];
      const clear = clearance(model, p);
      if (clear < -2) break; // crossed into something: the rest of this walk is another region
      const score = Math.min(clear, 12) - 0.05 * dist(p, centroid);
      if (score > bestScore) {
        bestScore = score;
        best = p;
      }
    }
  }
  return best;
}

/** The figure spot of an enclosed field: the roomiest point of field no half-edge reaches. */
function enclosedSpot(model) {
  const reached = new Set([...fieldRegions(model).values()].flatMap((found) => [...found]));
  const { label, cellOf } = regionGrid(model);
  const unreached = (p) => label[cellOf(p)] >= 0 && !reached.has(label[cellOf(p)]);
  return freePoint(model, 8, [], 0, 10, unreached) || freePoint(model, 8);
}

/** Where a road that ends with no hub on its tile stops: under a city across the tile, else the middle. */
function unhubbedEnd(o, e) {
  if (o.edges[(e + 2) % 4] !== "C") return [50, 50];
  const far = MID[(e + 2) % 4];
  return [50 + (far[0] - 50) * 0.6, 50 + (far[1] - 50) * 0.6];
}

/** Where the segments [a0, a1] and [b0, b1] meet (ends included), or null. */
function crossing([a0, a1], [b0, b1]) {
  const [rx, ry] = [a1[0] - a0[0], a1[1] - a0[1]];
  const [sx, sy] = [b1[0] - b0[0], b1[1] - b0[1]];
  const denom = rx * sy - ry * sx;
  if (Math.abs(denom) < 1e-9) {
    // Parallel: they meet only where one ends on the other's end (two roads to the middle).
    for (const p of [a0, a1]) for (const q of [b0, b1]) if (dist(p, q) < 1e-6) return p;
    return null;
  }
  const t = ((b0[0] - a0[0]) * sy - (b0[1] - a0[1]) * sx) / denom;
  const u = ((b0[0] - a0[0]) * ry - (b0[1] - a0[1]) * rx) / denom;
  if (t < -1e-9 || t > 1 + 1e-9 || u < -1e-9 || u > 1 + 1e-9) return null;
  return [a0[0] + t * rx, a0[1] + t * ry];
}

/**
 * The places on the border where one field gives way to another with no road or river between:
 * {target, fields: [a, b]} with the point a divider must reach (a corner, an edge's middle, or
 * the middle of the wall of the city lying between the two fields).
 */
function fieldBreaks(model, o, segs) {
  const fieldOf = new Array(8).fill(-1);
  segs.forEach((s, i) => {
    if (s.kind === "field") for (const h of s.halves) fieldOf[HALVES.indexOf(h)] = i;
  });
  const ring = [];
  for (let h = 0; h < 8; h++) if (fieldOf[h] >= 0) ring.push(h);
  const breaks = [];
  for (let j = 0; j < ring.length; j++) {
    const h = ring[j];
    const next = ring[(j + 1) % ring.length];
    if (fieldOf[h] === fieldOf[next]) continue;
    let target;
    if (next === (h + 1) % 8) {
      const edge = h >> 1;
      const split = h % 2 === 0; // NL -> NR: the middle of one edge
      if (split && o.edges[edge] !== "F") continue; // a road or river already separates
      target = BETWEEN[h];
    } else {
      // A city lies between the two fields: the middle of its wall.
      const edge = ((h >> 1) + 1) % 4;
      const city = model.cities.find((c) => segs[c.index].edges.includes(EDGES[edge]));
      if (!city || !city.walls.length) continue;
      const wall = city.walls[0];
      target = wall[Math.floor(wall.length / 2)];
    }
    breaks.push({ target, fields: [fieldOf[h], fieldOf[next]] });
  }
  return breaks;
}

const REGION_CELL = 2; // tile units per cell of the grid fieldRegions floods

/**
 * Which stretches of open field the drawing shows: flood the tile outside cities, roads, rivers,
 * dividers and centre features, and give each field segment the set of stretches its half-edges
 * and (once placed) its figure spot lie in. The drawing matches the data when
 * every field has exactly one stretch and no two fields share one; the model uses it to add only
 * the dividers a tile needs, the browser tests to check every tile.
 */
export function fieldRegions(model) {
  const { label, cellOf } = regionGrid(model);
  const result = new Map();
  model.orientation.segments.forEach((s, i) => {
    if (s.kind !== "field") return;
    const found = new Set();
    for (const h of s.halves) {
      const [x, y] = HALF_POINT[HALVES.indexOf(h)];
      // Just inside the border, stepping further in past a wall's end or a road's edge.
      for (const inset of [3, 7, 11]) {
        const r = label[cellOf([x + (x === 0 ? inset : x === 100 ? -inset : 0), y + (y === 0 ? inset : y === 100 ? -inset : 0)])];
        if (r >= 0) {
          found.add(r);
          break;
        }
      }
    }
    if (model.spots.has(i)) {
      const r = label[cellOf(model.spots.get(i))];
      if (r >= 0) found.add(r);
    }
    result.set(i, found);
  });
  return result;
}

/** The flooded grid: each cell's stretch of field (-2: covered), and the cell of a point. */
function regionGrid(model) {
  const n = 100 / REGION_CELL;
  const lines = [
    ...model.roads.map((r) => ({ pts: r.pts, width: ROAD_HALF_WIDTH })),
    ...model.rivers.map((r) => ({ pts: r.pts, width: RIVER_HALF_WIDTH })),
    ...model.dividers,
  ];
  const cellOf = ([x, y]) => Math.min(n - 1, Math.floor(y / REGION_CELL)) * n + Math.min(n - 1, Math.floor(x / REGION_CELL));
  const label = new Int32Array(n * n).fill(-1); // -2: blocked
  for (let c = 0; c < n * n; c++) {
    const p = [((c % n) + 0.5) * REGION_CELL, (Math.floor(c / n) + 0.5) * REGION_CELL];
    if (model.cities.some((city) => city.inside(p))
      || lines.some((l) => distToPolyline(p, l.pts) < l.width + 0.5)
      || model.centres.some((k) => dist(p, k.at) < k.radius)) label[c] = -2;
  }
  let regions = 0;
  for (let c = 0; c < n * n; c++) {
    if (label[c] !== -1) continue;
    const stack = [c];
    label[c] = regions;
    while (stack.length) {
      const d = stack.pop();
      const [x, y] = [d % n, Math.floor(d / n)];
      for (const [nx, ny] of [[x + 1, y], [x - 1, y], [x, y + 1], [x, y - 1]]) {
        if (nx < 0 || ny < 0 || nx >= n || ny >= n || label[ny * n + nx] !== -1) continue;
        label[ny * n + nx] = regions;
        stack.push(ny * n + nx);
      }
    }
    regions++;
  }
  return { label, cellOf };
}

const MODELS = new Map();

/** The drawing model of a tile type at a rotation (memoised). */
export function tileModel(tileId, rotation) {
  const key = `${tileId}@${rotation}`;
  let model = MODELS.get(key);
  if (!model) {
    const tile = TILES[tileId];
    const orientation = tile.rotations[rotation / 90];
    model = buildModel(tile, orientation);
    MODELS.set(key, model);
  }
  return model;
}

function buildModel(tile, o) {
  const segs = o.segments;
  const model = {
    tile,
    orientation: o,
    cities: [],
    roads: [],
    rivers: [],
    obstacles: [], // through-roads and rivers, which centre features avoid
    spurs: [], // roads that end on this tile
    dividers: [],
    centres: [],
    lake: null,
    overpass: false, // two through roads cross: one is drawn on a bridge
    spots: new Map(), // segment index -> [x, y]
    taken: [],
    locations: {}, // location name -> segment index
    arms: [],
    goods: [], // Traders & Builders goods symbols: {kind, at}
  };
  // A band city (two opposite edges) reaches 25 into the tile from each side: a one-edge city
  // beside it is drawn shallow so that the field the data puts between them shows.
  const isBand = (s) => s.edges.length === 2 && (EDGES.indexOf(s.edges[0]) + 2) % 4 === EDGES.indexOf(s.edges[1]);
  const banded = segs.some((s) => s.kind === "city" && isBand(s));
  segs.forEach((s, i) => {
    model.locations[s.location] = i;
    for (const e of s.edges) model.locations[e] = i;
    for (const h of s.halves) model.locations[h] = i;
    if (s.kind === "city") model.cities.push(cityModel(s, i, banded));
  });
  const decor = new Set(tile.decor);

  // Rivers first: they run through or end in a spring or a lake.
  for (const river of o.rivers) {
    const edges = river.map((e) => EDGES.indexOf(e));
    if (edges.length === 1) {
      const lake = decor.has("lake");
      const mid = MID[edges[0]];
      // The spring sits a little towards its river, clear of a road curving round the middle
      // (river/A), so that the field goes round it.
      const pull = lake ? 0.3 : 0.2;
      const at = [50 + (mid[0] - 50) * pull, 50 + (mid[1] - 50) * pull];
      model.lake = { at, radius: lake ? 21 : 9, lake };
      model.rivers.push({ pts: [mid, at] });
      model.centres.push({ kind: "water", at, radius: model.lake.radius });
    } else {
      const pts = track(edges);
      model.rivers.push({ pts });
      model.obstacles.push({ pts, width: RIVER_HALF_WIDTH });
    }
  }
  const roadSegs = segs.map((s, i) => [s, i]).filter(([s]) => s.kind === "road");
  for (const [s, i] of roadSegs) {
    if (s.edges.length === 2) {
      const pts = track(s.edges.map((e) => EDGES.indexOf(e)));
      model.roads.push({ index: i, pts });
      model.obstacles.push({ pts, width: ROAD_HALF_WIDTH });
    }
  }
  // Two through roads that cross are two roads (traders_builders/24): one runs over the other on
  // a bridge.
  const through = model.roads.filter((r) => r.pts.length === 2);
  model.overpass = through.some((a, i) => through.slice(i + 1).some((b) => crossing(a.pts, b.pts)));
  const endEdges = roadSegs.filter(([s]) => s.edges.length === 1).map(([s]) => EDGES.indexOf(s.edges[0]));
  const endMids = endEdges.map((e) => MID[e]);
  const decorHub = decor.has("village") || decor.has("crossroads");
  const centreHub = tile.centre.includes("monastery") || tile.centre.includes("betting-office");
  // Roads that end with nothing to end at run to the middle, or under a city across the tile.
  // Where two of them would meet or cross outside a city they would read as one road: they end
  // at a small crossroads instead, as roads do on the base tiles (ic/E, traders_builders/07).
  if (!decorHub && !centreHub) {
    const runs = endEdges.map((e) => [MID[e], unhubbedEnd(o, e)]);
    const meet = runs.some((a, i) => runs.slice(i + 1).some((b) => {
      const p = crossing(a, b);
      return p && !model.cities.some((c) => c.inside(p));
    }));
    if (meet) model.centres.push({ kind: "crossroads", at: [50, 50], radius: 9 });
  }

  // Centre features: the office draws the roads ending on the tile towards it.
  // With a monastery too, the office sits by its road (bets/09: "the office on the west side").
  const shared = tile.centre.length > 1;
  const order = [...tile.centre].sort((a, b) => (b === "betting-office") - (a === "betting-office"));
  for (const name of order) {
    const radius = CENTRE_RADIUS[name] || 12;
    let at;
    if (name === "betting-office") at = freePoint(model, radius, endMids, shared ? -0.4 : -0.05);
    else if (name === "monastery") at = freePoint(model, radius, endMids, 0.02);
    else at = freePoint(model, radius);
    model.centres.push({ kind: name, at, radius });
  }
  if (decor.has("village") || decor.has("crossroads")) {
    model.centres.push({ kind: decor.has("village") ? "village" : "crossroads", at: [50, 50], radius: 9 });
  }

  // Roads that end here end at the office, the monastery, the village or crossroads, or run
  // under a city wall (a city gate).
  const hub = model.centres.find((c) => c.kind === "betting-office")
    || model.centres.find((c) => c.kind === "monastery")
    || model.centres.find((c) => c.kind === "village" || c.kind === "crossroads");
  for (const [s, i] of roadSegs) {
    if (s.edges.length !== 1) continue;
    const e = EDGES.indexOf(s.edges[0]);
    const pts = [MID[e], hub ? hub.at : unhubbedEnd(o, e)];
    model.roads.push({ index: i, pts, end: true });
    model.spurs.push({ pts, width: ROAD_HALF_WIDTH });
  }

  // An office separates the fields around it (docs/rules.md §3): draw a divider from the office to
  // every place on the border where one field gives way to another without a road between.
  // Without an office, a divider (a hedge) goes only where the drawing would otherwise join two
  // fields the data keeps apart (ic/G): from the crossroads or monastery the roads end at, else
  // from the nearest road end, else from the other place where those fields meet.
  const breaks = fieldBreaks(model, o, segs);
  const office = model.centres.find((c) => c.kind === "betting-office");
  if (office) {
    for (const b of breaks) model.dividers.push({ pts: [office.at, b.target], width: 2 });
  } else {
    const regions = fieldRegions(model);
    const joined = breaks.filter((b) => [...regions.get(b.fields[0])].some((r) => regions.get(b.fields[1]).has(r)));
    const ends = model.roads.filter((r) => r.end).map((r) => r.pts[1]);
    for (const b of joined) {
      const from = hub ? hub.at : ends.sort((p, q) => dist(p, b.target) - dist(q, b.target))[0];
      if (from) model.dividers.push({ pts: [from, b.target], width: 2 });
    }
    if (!hub && !ends.length && joined.length === 2) {
      model.dividers.push({ pts: [joined[0].target, joined[1].target], width: 2 });
    }
  }

  // Figure spots: centre features, cities, roads, then fields (which avoid all of those).
  segs.forEach((s, i) => {
    if (s.kind === "monastery" || s.kind === "garden") {
      const c = model.centres.find((c) => c.kind === s.kind);
      model.spots.set(i, c.at);
    } else if (s.kind === "city") {
      const city = model.cities.find((c) => c.index === i);
      model.spots.set(i, city.spot);
      if (s.coat_of_arms) model.arms.push(city.arms);
      // Traders & Builders goods: where a coat of arms would be (these cities have none).
      for (const kind of s.marks || []) if (GOODS_KINDS.includes(kind)) model.goods.push({ kind, at: city.arms });
    }
  });
  for (const road of model.roads) {
    const pts = road.pts;
    let spot;
    if (road.end) {
      const [a, b] = pts;
      const t = Math.min(0.55, 22 / Math.max(dist(a, b), 1));
      spot = [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
    } else {
      spot = pts[Math.floor(pts.length / 2)];
      if (pts.length === 2) spot = [(pts[0][0] + pts[1][0]) / 2, (pts[0][1] + pts[1][1]) / 2];
      // Leave the middle to a centre feature or a crossing river (a bridge).
      if (model.centres.some((c) => dist(c.at, spot) < c.radius + 8) || model.rivers.some((r) => distToPolyline(spot, r.pts) < 12)) {
        const q = pts.length === 2 ? 0.22 : 0.2;
        const a = pts[0];
        const b = pts[pts.length - 1];
        spot = [a[0] + (b[0] - a[0]) * q, a[1] + (b[1] - a[1]) * q];
      }
    }
    model.spots.set(road.index, spot);
  }
  // Inns stand by their road, beside a figure's spot; a cathedral stands in its city where a
  // coat of arms would (the cathedral tiles have none).
  model.marks = [];
  segs.forEach((s, i) => {
    for (const mark of s.marks || []) {
      if (mark === "cathedral") {
        model.marks.push({ kind: mark, at: model.cities.find((c) => c.index === i).arms });
      } else if (mark === "inn") {
        model.marks.push({ kind: mark, at: besideRoad(model.roads.find((r) => r.index === i)) });
      }
    }
  });
  for (const p of model.spots.values()) model.taken.push(p);
  for (const m of model.marks) model.taken.push(m.at);
  segs.forEach((s, i) => {
    if (s.kind !== "field") return;
    // An enclosed field touches no edge: its figure goes where there is most room in the stretch
    // of field that no edge reaches.
    const spot = s.halves.length ? fieldSpot(model, s.halves.map((h) => HALVES.indexOf(h))) : enclosedSpot(model);
    model.spots.set(i, spot);
    model.taken.push(spot);
  });
  return model;
}

// ---------------------------------------------------------------------------------- drawing

/** A point beside a road, off its middle (an end road: towards its edge), inside the tile. */
function besideRoad(road) {
  const pts = road.pts;
  const j = Math.max(0, Math.floor((pts.length - 2) / 2));
  const [a, b] = [pts[j], pts[j + 1]];
  const t = road.end ? 0.35 : 0.5;
  const len = Math.max(dist(a, b), 1);
  const [dx, dy] = [(b[0] - a[0]) / len, (b[1] - a[1]) / len];
  const clamp = (v) => Math.min(88, Math.max(12, v));
  return [clamp(a[0] + (b[0] - a[0]) * t - dy * 17), clamp(a[1] + (b[1] - a[1]) * t + dx * 17)];
}

function drawInn(g, [x, y]) {
  const b = svg("g", { class: "inn", transform: `translate(${x} ${y})` }, g);
  svg("rect", { x: -7, y: -3, width: 14, height: 10, rx: 1, class: "bldg-wall" }, b);
  svg("path", { d: "M-9,-2 L0,-9 L9,-2 Z", class: "inn-roof" }, b);
  svg("circle", { cx: 0, cy: 2.5, r: 2.6, class: "inn-sign" }, b);
}

function drawCathedral(g, [x, y]) {
  const b = svg("g", { class: "cathedral", transform: `translate(${x} ${y})` }, g);
  svg("rect", { x: -10, y: -4, width: 20, height: 14, class: "bldg-wall" }, b);
  svg("rect", { x: -10, y: -14, width: 6, height: 12, class: "bldg-wall" }, b);
  svg("rect", { x: 4, y: -14, width: 6, height: 12, class: "bldg-wall" }, b);
  svg("path", { d: "M-11,-13 L-7,-20 L-3,-13 Z M3,-13 L7,-20 L11,-13 Z M-4,-4 L0,-10 L4,-4 Z", class: "cathedral-roof" }, b);
  svg("path", { d: "M0,-1 V9 M-3.5,2 H3.5", class: "bldg-cross" }, b);
}

function pathOf(pts) {
  if (pts.length === 2) return `M${pts[0][0]},${pts[0][1]} L${pts[1][0]},${pts[1][1]}`;
  return "M" + pts.map((p) => `${p[0].toFixed(1)},${p[1].toFixed(1)}`).join(" L");
}

function drawMonastery(g, [x, y]) {
  const b = svg("g", { class: "monastery", transform: `translate(${x} ${y})` }, g);
  svg("rect", { x: -12, y: -6, width: 24, height: 17, rx: 1.5, class: "bldg-wall" }, b);
  svg("path", { d: "M-14,-5 L0,-15 L14,-5 Z", class: "bldg-roof" }, b);
  svg("rect", { x: -3, y: 2, width: 6, height: 9, rx: 3, class: "bldg-door" }, b);
  svg("path", { d: "M0,-23 V-14 M-3.5,-19.5 H3.5", class: "bldg-cross" }, b);
}

function drawOffice(g, [x, y]) {
  const b = svg("g", { class: "office", transform: `translate(${x} ${y})` }, g);
  svg("rect", { x: -11, y: -5, width: 22, height: 15, rx: 1.5, class: "office-wall" }, b);
  svg("path", { d: "M-13,-4 L-9,-12 H9 L13,-4 Z", class: "office-awning" }, b);
  svg("path", { d: "M-5,-12 L-6,-4 M0,-12 V-4 M5,-12 L6,-4", class: "office-stripes" }, b);
  svg("circle", { cx: 0, cy: 3, r: 4.2, class: "office-coin" }, b);
}

function drawGarden(g, [x, y]) {
  const b = svg("g", { class: "garden", transform: `translate(${x} ${y})` }, g);
  svg("circle", { r: 10, class: "garden-hedge" }, b);
  svg("circle", { r: 6.5, class: "garden-lawn" }, b);
  for (const [dx, dy] of [[-3, -2], [3, -2.5], [0, 3], [-3.5, 3], [3.5, 2.5]]) {
    svg("circle", { cx: dx, cy: dy, r: 1.4, class: "garden-flower" }, b);
  }
}

function drawVillage(g, [x, y]) {
  const b = svg("g", { class: "village", transform: `translate(${x} ${y})` }, g);
  svg("circle", { r: 9, class: "crossroads-plaza" }, b);
  for (const [dx, dy] of [[-4, -3], [4, -2], [0, 4]]) {
    svg("rect", { x: dx - 3, y: dy - 2, width: 6, height: 5, class: "bldg-wall small" }, b);
    svg("path", { d: `M${dx - 4},${dy - 2} L${dx},${dy - 5.5} L${dx + 4},${dy - 2} Z`, class: "bldg-roof" }, b);
  }
}

const GOODS_KINDS = ["wine", "grain", "cloth"];

/** A trade good's symbol (Traders & Builders): grapes, a sheaf, a bolt of cloth. */
function drawGoods(g, { kind, at: [x, y] }) {
  const b = svg("g", { class: `goods goods-${kind}`, transform: `translate(${x} ${y})` }, g);
  svg("circle", { r: 7.5, class: "goods-disc" }, b);
  if (kind === "wine") {
    for (const [cx, cy] of [[-2.4, -2], [2.4, -2], [0, 2.2]]) svg("circle", { cx, cy, r: 2.6, class: "goods-mark" }, b);
  } else if (kind === "grain") {
    svg("path", { d: "M0,5 V-5 M0,-1 L-3,-4 M0,-1 L3,-4 M0,2 L-3,-1 M0,2 L3,-1", class: "goods-stroke" }, b);
  } else {
    svg("rect", { x: -4.5, y: -3.5, width: 9, height: 7, rx: 1, class: "goods-mark" }, b);
  }
}

function drawShield(g, [x, y]) {
  const b = svg("g", { class: "arms", transform: `translate(${x} ${y})` }, g);
  svg("path", { d: "M-6,-7 H6 V-1 C6,4 2.5,6.5 0,8 C-2.5,6.5 -6,4 -6,-1 Z", class: "arms-shield" }, b);
  svg("path", { d: "M0,-5 V5 M-4,-1 H4", class: "arms-cross" }, b);
}

function drawHouses(g, city, seed, walls) {
  // A few roofs inside the city, placed deterministically, for a town-like look.
  const spots = [[30, 14], [62, 16], [45, 30], [20, 45], [70, 45], [50, 60], [30, 70], [70, 72], [50, 85], [85, 20], [15, 85], [85, 85], [15, 20]];
  let n = 0;
  for (let i = 0; i < spots.length && n < 5; i++) {
    const p = spots[(i + seed) % spots.length];
    if (!city.inside(p) || !city.inside([p[0] - 6, p[1] - 5]) || !city.inside([p[0] + 6, p[1] + 5])) continue;
    if (dist(p, city.spot) < 13 || dist(p, city.arms) < 11) continue;
    if (walls.some((wall) => distToPolyline(p, wall) < 8)) continue; // not astride a wall
    svg("path", { d: `M${p[0] - 5},${p[1] + 3} V${p[1] - 1} L${p[0]},${p[1] - 5} L${p[0] + 5},${p[1] - 1} V${p[1] + 3} Z`, class: "city-house" }, g);
    n++;
  }
}

/**
 * Draw a tile into `parent` (tile units, origin at the tile's north-west corner).
 * Returns the group; `options.ghost` draws it translucent for previews.
 */
export function drawTile(parent, tileId, rotation, options = {}) {
  const model = tileModel(tileId, rotation);
  const g = svg("g", { class: "tile" + (options.ghost ? " ghost" : "") }, parent);
  svg("rect", { x: 0, y: 0, width: 100, height: 100, class: "field" }, g);
  for (const d of model.dividers) svg("path", { d: pathOf(d.pts), class: "divider" }, g);
  for (const r of model.rivers) {
    svg("path", { d: pathOf(r.pts), class: "river-bank" }, g);
    svg("path", { d: pathOf(r.pts), class: "river" }, g);
  }
  if (model.lake) {
    svg("circle", { cx: model.lake.at[0], cy: model.lake.at[1], r: model.lake.radius, class: "lake" }, g);
  }
  const bridge = model.rivers.length > 0 || model.overpass;
  for (const r of model.roads) {
    svg("path", { d: pathOf(r.pts), class: "road-edge" + (bridge ? " bridge" : "") }, g);
    svg("path", { d: pathOf(r.pts), class: "road" }, g);
  }
  model.cities.forEach((city, n) => {
    svg("path", { d: city.outline, transform: `rotate(${city.k * 90} 50 50)`, class: "city" }, g);
    drawHouses(g, city, n * 3 + tileId.length, model.cities.flatMap((c) => c.walls));
    for (const wall of city.walls) svg("path", { d: pathOf(wall), class: "wall" }, g);
  });
  for (const arms of model.arms) drawShield(g, arms);
  for (const m of model.marks) (m.kind === "inn" ? drawInn : drawCathedral)(g, m.at);
  for (const goods of model.goods) drawGoods(g, goods);
  for (const c of model.centres) {
    if (c.kind === "monastery") drawMonastery(g, c.at);
    else if (c.kind === "betting-office") drawOffice(g, c.at);
    else if (c.kind === "garden") drawGarden(g, c.at);
    else if (c.kind === "village") drawVillage(g, c.at);
    else if (c.kind === "crossroads") svg("circle", { cx: c.at[0], cy: c.at[1], r: 6.5, class: "crossroads" }, g);
  }
  svg("rect", { x: 0.5, y: 0.5, width: 99, height: 99, class: "tile-border" }, g);
  return g;
}

/** Draw a map's large city (a printed square): all city, walls where it is closed. */
export function drawLargeCity(parent, name, openEdges) {
  const g = svg("g", { class: "tile large-city" }, parent);
  svg("rect", { x: 0, y: 0, width: 100, height: 100, class: "city" }, g);
  const closed = { N: "M0,2 H100", E: "M98,0 V100", S: "M0,98 H100", W: "M2,0 V100" };
  for (const edge of EDGES) {
    if (!openEdges.includes(edge)) svg("path", { d: closed[edge], class: "wall" }, g);
  }
  for (const [x, y] of [[22, 26], [50, 20], [78, 26], [30, 70], [70, 70]]) {
    svg("path", { d: `M${x - 7},${y + 5} V${y - 2} L${x},${y - 9} L${x + 7},${y - 2} V${y + 5} Z`, class: "city-house" }, g);
  }
  svg("rect", { x: 40, y: 34, width: 20, height: 26, class: "bldg-wall" }, g);
  svg("path", { d: "M37,35 L50,20 L63,35 Z", class: "bldg-roof" }, g);
  return g;
}

/** Location name -> [x, y] figure spot, for the segments of a tile at a rotation. */
export function spotOf(tileId, rotation, location) {
  const model = tileModel(tileId, rotation);
  const index = model.locations[location];
  return index === undefined ? null : model.spots.get(index);
}

/** The segment a location names, for the kind of figure drawn there (farmers lie down). */
export function segmentAt(tileId, rotation, location) {
  const model = tileModel(tileId, rotation);
  const index = model.locations[location];
  return index === undefined ? null : model.orientation.segments[index];
}
