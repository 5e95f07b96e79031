// Showdown page: draws what the server says. Legality, scores and moves all come from the
// server (the AEC env); the page only highlights the cells it is given.
// Every string from a request, a record or a results file goes in as text: through esc()
// where HTML is built, textContent or new Option() elsewhere. Only the SVG the server draws
// from tile numbers is inserted as HTML.
"use strict";

const $ = (sel) => document.querySelector(sel);
const $$ = (sel) => Array.from(document.querySelectorAll(sel));
const store = window.sessionStorage;
window.showdownDraws = 0; // per tab: each tab keeps its own games

const ui = {
  view: store.getItem("showdown.view") || "play",
  zoom: "fit",
  selected: null, // tile type chosen from the hand
  state: {}, // last state per view
  watchPaused: false,
  watchTimer: null,
  pollTimer: null,
  replay: null, // {id, count, index, names, log, file}
  replayContent: null,
  replayFile: null,
};

async function api(method, url, body) {
  const init = { method, headers: { "Content-Type": "application/json" } };
  if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
  const response = await fetch(url, init);
  let data;
  try {
    data = await response.json();
  } catch (e) {
    data = { error: `${response.status} ${response.statusText}` };
  }
  if (!response.ok) throw new Error(data.error || `${response.status} ${response.statusText}`);
  return data;
}

function esc(text) {
  const map = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  return String(text).replace(/[&<>"']/g, (c) => map[c]);
}

function message(text, isError) {
  const box = $("#message");
  box.textContent = text || "";
  box.className = isError ? "error" : "";
}

function drawn() {
  // A counter that scripts (and the browser test) can wait on.
  window.showdownDraws = (window.showdownDraws || 0) + 1;
}

async function attempt(fn) {
  try {
    await fn();
  } catch (err) {
    message(err.message, true);
    drawn();
  }
}

// --- board, zoom ---------------------------------------------------------------------
function drawBoard(svg, count) {
  const board = $("#board");
  board.innerHTML = svg || "";
  $("#tile-count").textContent = count === undefined ? "" : `${count} tiles on the table`;
  $("#welcome").hidden = Boolean(svg);
  document.body.classList.toggle("no-game", !svg);
  applyZoom();
}

function applyZoom() {
  const board = $("#board");
  const svg = board.querySelector("svg");
  if (!svg) return;
  if (!svg.dataset.w) {
    svg.dataset.w = svg.getAttribute("width");
    svg.dataset.h = svg.getAttribute("height");
  }
  board.classList.toggle("fit", ui.zoom === "fit");
  let scale = ui.zoom;
  if (ui.zoom === "fit") {
    // The whole table in view, as large as the view allows (a small one up to 3x).
    const box = board.getBoundingClientRect();
    scale = Math.min(3, (box.width - 4) / svg.dataset.w, (box.height - 4) / svg.dataset.h);
  }
  svg.setAttribute("width", svg.dataset.w * scale);
  svg.setAttribute("height", svg.dataset.h * scale);
}

function zoomBy(factor) {
  if (ui.zoom === "fit") {
    const svg = $("#board svg");
    const box = $("#board").getBoundingClientRect();
    ui.zoom = svg ? Math.min(3, box.width / svg.dataset.w, box.height / svg.dataset.h) : 1;
  }
  ui.zoom = Math.max(0.2, Math.min(4, ui.zoom * factor));
  applyZoom();
}

// --- scores, hands, log ----------------------------------------------------------------
function seatText(state, seat) {
  const s = state.seats ? state.seats[seat] : null;
  return s ? `P${seat} ${s.name}` : `P${seat}`;
}

function seatName(state, seat) {
  return esc(seatText(state, seat)); // as HTML
}

function tilesHtml(tiles) {
  return `<span class="tiles">${tiles.map((t) => `<span title="${esc(t.name)}">${t.svg}</span>`).join("")}</span>`;
}

function drawScores(state) {
  const rows = state.scores.map((score, seat) => {
    const classes = [];
    if (state.to_move === seat) classes.push("to-move");
    if ((state.winners || []).includes(seat)) classes.push("winner");
    const hand = state.hand_sizes ? `${state.hand_sizes[seat]} in hand` : "";
    return `<tr class="${classes.join(" ")}" data-seat="${seat}"><td>${seatName(state, seat)}</td>` +
      `<td>${esc(hand)}</td><td class="score">${esc(score)}</td></tr>`;
  });
  rows.push(`<tr><td>bag</td><td></td><td class="score" id="bag">${esc(state.bag)}</td></tr>`);
  $("#scores").innerHTML = rows.join("");
}

function drawHands(state) {
  const hands = state.hands || [];
  $("#hands").innerHTML = hands
    .map((h, seat) => (h === null || (state.human_turn && state.seats[seat].human) ? "" :
      `<div class="seat">${seatName(state, seat)}: ${tilesHtml(h)}</div>`))
    .join("");
}

function drawLog(state) {
  const log = $("#log");
  log.innerHTML = (state.log || [])
    .map((m) => `<li>${seatName(state, m.seat)} ${esc(m.text)}<span class="points">${esc(m.points)}</span></li>`)
    .join("");
  log.scrollTop = log.scrollHeight;
}

function statusText(state) {
  if (state.over) {
    if (state.truncated) return `Game stopped: ${esc(state.truncated)}`;
    const w = state.winners.map((s) => seatName(state, s));
    return w.length === 1 ? `Game over: ${w[0]} wins` : `Game over: shared win for ${w.join(", ")}`;
  }
  if (state.thinking) {
    const seat = state.thinking.seat;
    const cpu = Number(state.thinking.cpu);
    const budget = Number(state.thinking.budget);
    // A searcher's budget is CPU seconds a move: the bar is the CPU its thread has spent.
    const bar = budget > 0
      ? `<br><progress class="think" max="${budget}" value="${Math.min(cpu, budget)}"></progress>` +
        ` CPU ${cpu.toFixed(1)} of ${budget} s`
      : "";
    return `<span class="spinner"></span>${seatName(state, seat)} is thinking…${bar}`;
  }
  if (state.error) return `Stopped: ${seatName(state, state.to_move)} failed. Retry, or start a new game.`;
  if (state.human_turn) {
    const open = state.turn.opening_size;
    return "Your turn" + (open ? `: the opening places ${esc(open)} tiles of one group` : "");
  }
  if (ui.view === "watch" && ui.watchPaused) return `Paused: ${seatName(state, state.to_move)} is next`;
  return `${seatName(state, state.to_move)} to move`;
}

function helpText(state) {
  // What to do next, for someone who has never played here.
  if (!state.human_turn) return "";
  const turn = state.turn;
  if (turn.exchange.length) return "End the turn to exchange the tiles set aside, or set aside more.";
  if (ui.selected !== null) {
    const tile = turn.hand.find((t) => t.id === ui.selected);
    if (tile && tile.placeable) return `Tap a green cell on the table to place the ${tile.name}.`;
    return `The ${tile ? tile.name : "tile"} fits nowhere this turn: Exchange it, or pick another.`;
  }
  if (turn.placed) return "Place more tiles in the same line, or End turn to score.";
  if (turn.hand.some((t) => t.placeable)) return "Pick a tile with a green border, then a green cell.";
  return "No tile fits: pick tiles and Exchange them, then End turn.";
}

function drawGame(state) {
  ui.state[ui.view] = state;
  if (!analysisShowing()) drawBoard(state.board, state.tiles_on_table);
  drawScores(state);
  drawHands(state);
  drawLog(state);
  $("#status").innerHTML = statusText(state);
  if (state.error) message(state.error, true);
  $("#stuck").hidden = !state.error || state.over;
  drawTurn(state);
  $("#help").textContent = helpText(state);
  $("#final").hidden = !state.over || !state.record;
  $("#analysis").hidden = !state.over || !state.record;
  window.showdownRecord = state.record || null;
  const id = store.getItem(`showdown.${ui.view}`);
  if (state.over && ui.overOpened !== id) {
    // the form stays folded while a game goes on, and opens once it is over
    $(`.setup[data-view="${ui.view}"]`).open = true;
    ui.overOpened = id;
  }
  document.body.dataset.phase = state.over ? "over" : state.thinking ? "thinking" :
    state.error ? "stuck" : state.human_turn ? "human" :
      ui.view === "watch" && ui.watchPaused ? "paused" : "waiting";
  window.showdownState = state;
  drawn();
}

function drawTurn(state) {
  const turn = state.turn;
  $("#turn").hidden = !turn;
  if (!turn) return;
  const types = turn.hand.map((t) => t.id);
  if (!types.includes(ui.selected)) ui.selected = null;
  $("#hand").innerHTML = turn.hand
    .map((t) => {
      // The same marks every turn: green border = can be placed; faded = cannot.
      const classes = ["tile", t.placeable ? "placeable" : "unplaceable"];
      if (t.id === ui.selected) classes.push("selected");
      const usable = t.placeable || t.exchangeable;
      const why = t.placeable ? "can be placed" : t.exchangeable ? "fits nowhere: can be exchanged" : "cannot be played now";
      return `<button class="${classes.join(" ")}" data-tile="${Number(t.id)}" title="${esc(t.name)}: ${why}"` +
        ` aria-label="${esc(t.name)}, ${why}"${usable ? "" : " disabled"}>${t.svg}</button>`;
    })
    .join("");
  $("#aside-tiles").innerHTML = turn.exchange.length ? tilesHtml(turn.exchange) : "";
  const chosen = turn.hand.find((t) => t.id === ui.selected);
  $("#exchange").disabled = !(chosen && chosen.exchangeable);
  $("#end").disabled = !turn.can_end;
  $("#undo").disabled = !turn.can_undo;
  $("#hint").hidden = state.seats.every((s) => s.human);
  const hint = state.hint;
  $("#hint-text").textContent = hint
    ? `Hint (${hint.by}): ${hint.text}${hint.place ? `, ${hint.points} points` : ""}. ` +
      (hint.cells.length ? "Its cells are ringed on the table." : "")
    : "";
}

// --- play ------------------------------------------------------------------------------
function specsOf(view) {
  return $$(`.setup[data-view="${view}"] .spec`).map((i) => i.value.trim()).filter((s) => s);
}

function seedOf(input) {
  const text = $(input).value.trim();
  return text === "" ? null : Number(text);
}

async function newPlay() {
  message("");
  ui.selected = null;
  const body = { mode: "play", agents: specsOf("play"), seat: Number($("#play-seat").value) };
  const seed = seedOf("#play-seed");
  if (seed !== null) body.seed = seed;
  const state = await api("POST", "/api/games", body);
  store.setItem("showdown.play", state.id);
  $('.setup[data-view="play"]').open = false;
  Analysis.reset();
  afterPlay(state);
}

async function refreshPlay() {
  const id = store.getItem("showdown.play");
  if (!id) return;
  const tile = ui.selected === null ? "" : `?tile=${ui.selected}`;
  afterPlay(await api("GET", `/api/games/${id}${tile}`));
}

function afterPlay(state) {
  if (ui.view !== "play") return;
  drawGame(state);
  clearTimeout(ui.pollTimer);
  // Poll while an agent is to move or still thinking.
  const waiting = !state.human_turn || state.thinking;
  if (!state.over && waiting && !state.error) ui.pollTimer = setTimeout(pollPlay, 250);
}

async function pollPlay() {
  try {
    await refreshPlay();
  } catch (err) {
    // A lost poll must not stall the page: say so and ask again.
    message(err.message, true);
    ui.pollTimer = setTimeout(pollPlay, 1000);
  }
}

async function playAction(body) {
  const id = store.getItem("showdown.play");
  if (!id) throw new Error("start a game first");
  const state = await api("POST", `/api/games/${id}/act`, body);
  message("");
  ui.selected = null;
  afterPlay(state);
}

async function askHint() {
  const id = store.getItem("showdown.play");
  if (!id) return;
  ui.selected = null;
  afterPlay(await api("POST", `/api/games/${id}/hint`, {}));
}

// --- watch -----------------------------------------------------------------------------
async function newWatch() {
  message("");
  const body = { mode: "watch", agents: specsOf("watch") };
  const seed = seedOf("#watch-seed");
  if (seed !== null) body.seed = seed;
  const state = await api("POST", "/api/games", body);
  store.setItem("showdown.watch", state.id);
  $('.setup[data-view="watch"]').open = false;
  ui.watchPaused = false;
  Analysis.reset();
  drawWatch(state);
}

function watchDelay() {
  // The slider is a speed: right is faster. 10 steps from 2 s between moves to none.
  return (10 - Number($("#watch-speed").value)) * 200;
}

function drawWatch(state) {
  if (ui.view !== "watch") return;
  drawGame(state);
  $("#watch-controls").hidden = false;
  $("#watch-pause").textContent = ui.watchPaused ? "Play" : "Pause";
  $("#watch-pause").disabled = state.over;
  $("#watch-step").disabled = !ui.watchPaused || state.over;
  clearTimeout(ui.watchTimer);
  if (state.over || state.error) return;
  if (state.thinking) {
    ui.watchTimer = setTimeout(() => attempt(refreshWatch), 200);
  } else if (!ui.watchPaused) {
    ui.watchTimer = setTimeout(() => attempt(stepWatch), watchDelay());
  }
}

async function refreshWatch() {
  const id = store.getItem("showdown.watch");
  if (id) drawWatch(await api("GET", `/api/games/${id}`));
}

async function retryAgent() {
  const id = store.getItem(`showdown.${ui.view}`);
  if (!id || (ui.view !== "play" && ui.view !== "watch")) return;
  message("");
  const state = await api("POST", `/api/games/${id}/retry`, {});
  if (ui.view === "play") afterPlay(state);
  else drawWatch(state);
}

async function stepWatch() {
  const id = store.getItem("showdown.watch");
  if (id) drawWatch(await api("POST", `/api/games/${id}/advance`));
}

// --- replay ----------------------------------------------------------------------------
function clearReplay() {
  // A failed load leaves nothing of the previous game on screen.
  ui.replay = null;
  store.removeItem("showdown.replay");
  for (const id of ["#board", "#scores", "#hands", "#log", "#status", "#tile-count"]) {
    $(id).replaceChildren();
  }
  $("#replay-controls").hidden = true;
  $("#analysis").hidden = true;
  $("#replay-name").textContent = "no game loaded";
  $('.setup[data-view="replay"]').open = true;
  Analysis.reset();
  $("#welcome").hidden = false;
  document.body.classList.add("no-game");
}

async function openReplay(content, game, names, label) {
  message("");
  const body = { content };
  if (game !== undefined) body.game = game;
  if (names) body.names = names;
  let answer;
  try {
    answer = await api("POST", "/api/replays", body);
  } catch (err) {
    clearReplay();
    throw err;
  }
  if (answer.choose) {
    ui.replayContent = content;
    const select = $("#replay-choose");
    select.replaceChildren(new Option("choose a game…", ""),
      ...answer.choose.map((g) => new Option(g.label, String(g.index))));
    select.hidden = false;
    clearReplay();
    $("#replay-name").textContent = `${label}: choose a game`;
    message("This is a harness results file: choose one of its games.");
    return;
  }
  Analysis.reset();
  const name = game === undefined ? label : `${label}, game ${game}`;
  ui.replay = { id: answer.id, count: answer.count, index: 0, names: answer.names, log: answer.log,
    name };
  store.setItem("showdown.replay", JSON.stringify(ui.replay));
  $("#replay-slider").max = answer.count - 1;
  if (answer.warning) message(answer.warning, true);
  await showFrame(0);
}

async function showFrame(k) {
  const r = ui.replay;
  if (!r) return;
  k = Math.max(0, Math.min(r.count - 1, k));
  const frame = await api("GET", `/api/replays/${r.id}/frames/${k}`);
  r.index = k;
  store.setItem("showdown.replay", JSON.stringify(r));
  if (ui.view !== "replay") return;
  const seats = r.names ? r.names.map((name) => ({ name })) : null;
  const state = { ...frame, seats, winners: [] };
  if (k === r.count - 1 && frame.to_move === null) {
    const best = Math.max(...frame.scores);
    state.winners = frame.scores.map((s, i) => (s === best ? i : -1)).filter((i) => i >= 0);
  }
  ui.state.replay = state;
  Analysis.leave();
  drawBoard(frame.board, frame.tiles_on_table);
  drawScores(state);
  $("#hands").innerHTML = frame.hands
    .map((h, seat) => `<div class="seat">${seatName(state, seat)}: ${tilesHtml(h)}</div>`).join("");
  const move = frame.move;
  $("#status").textContent = move
    ? `Move ${k} of ${r.count - 1}: ${seatText(state, move.seat)} ${move.text}, ${move.points} points`
    : `The deal (move 0 of ${r.count - 1})`;
  $("#replay-name").textContent = r.name || "a saved game";
  $("#replay-pos").textContent = `${k} / ${r.count - 1}`;
  $("#replay-slider").value = k;
  $("#replay-controls").hidden = false;
  $("#analysis").hidden = false;
  drawLog({ seats, log: (r.log || []).slice(0, k) });
  $("#turn").hidden = true;
  $("#stuck").hidden = true;
  $("#final").hidden = true;
  $("#help").textContent = "";
  $(`.setup[data-view="replay"]`).open = false;
  document.body.dataset.phase = k === r.count - 1 ? "replay-end" : "replay";
  drawn();
}

// --- views -----------------------------------------------------------------------------
function showView(view) {
  ui.view = view;
  store.setItem("showdown.view", view);
  $$(".tab").forEach((b) => b.classList.toggle("active", b.dataset.view === view));
  $$(".setup").forEach((s) => s.classList.toggle("active", s.dataset.view === view));
  $$("#welcome p").forEach((p) => { p.hidden = p.id !== `welcome-${view}`; });
  for (const id of ["#board", "#scores", "#hands", "#log", "#status", "#tile-count", "#help"]) {
    $(id).replaceChildren();
  }
  for (const id of ["#turn", "#stuck", "#final", "#analysis", "#watch-controls", "#replay-controls"]) {
    $(id).hidden = true;
  }
  $("#welcome").hidden = false;
  document.body.classList.add("no-game");
  if (view === "watch") {
    // the speed may be set before a game starts; pause and step need one
    $("#watch-controls").hidden = false;
    $("#watch-pause").disabled = $("#watch-step").disabled = true;
  }
  Analysis.reset();
  message("");
  clearTimeout(ui.pollTimer);
  clearTimeout(ui.watchTimer);
  const forget = (key) => (err) => {
    store.removeItem(key);
    message(err.message, true);
  };
  const has = (key) => Boolean(store.getItem(key));
  $(`.setup[data-view="${view}"]`).open = !has(`showdown.${view}`);
  if (view === "play" && has("showdown.play")) refreshPlay().catch(forget("showdown.play"));
  if (view === "watch" && has("showdown.watch")) refreshWatch().catch(forget("showdown.watch"));
  if (view === "replay") {
    ui.replay = JSON.parse(store.getItem("showdown.replay") || "null");
    if (ui.replay) {
      $("#replay-slider").max = ui.replay.count - 1;
      showFrame(ui.replay.index).catch(forget("showdown.replay"));
    }
  }
}

function download(name, text) {
  const blob = new Blob([text], { type: "application/json" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = name;
  link.click();
  URL.revokeObjectURL(link.href);
}

function wire() {
  $$(".tab").forEach((b) => b.addEventListener("click", () => showView(b.dataset.view)));
  $("#zoom-fit").addEventListener("click", () => { ui.zoom = "fit"; applyZoom(); });
  $("#zoom-in").addEventListener("click", () => zoomBy(1.25));
  window.addEventListener("resize", applyZoom);
  $("#zoom-out").addEventListener("click", () => zoomBy(0.8));
  $("#play-new").addEventListener("click", () => attempt(newPlay));
  $("#hand").addEventListener("click", (e) => {
    const tile = e.target.closest(".tile");
    if (!tile || tile.disabled) return;
    const t = Number(tile.dataset.tile);
    ui.selected = ui.selected === t ? null : t;
    attempt(refreshPlay);
  });
  $("#board").addEventListener("click", (e) => {
    const cell = e.target.closest(".target");
    if (!cell || ui.view !== "play" || ui.selected === null) return;
    const body = { action: "place", tile: ui.selected,
      cell: [Number(cell.dataset.row), Number(cell.dataset.col)] };
    attempt(() => playAction(body));
  });
  $("#exchange").addEventListener("click", () =>
    attempt(() => playAction({ action: "exchange", tile: ui.selected })));
  $("#end").addEventListener("click", () => attempt(() => playAction({ action: "end" })));
  $("#undo").addEventListener("click", () => attempt(() => playAction({ action: "undo" })));
  $("#hint").addEventListener("click", () => attempt(askHint));
  $("#save-record").addEventListener("click", () => {
    const state = ui.state[ui.view];
    if (state && state.record) download(`qwirkle-seed-${state.seed}.json`, state.record);
  });
  $("#replay-this").addEventListener("click", () => {
    const state = ui.state[ui.view];
    if (!state || !state.record) return;
    showView("replay");
    attempt(() => openReplay(state.record, undefined, state.seats.map((s) => s.name),
      `this ${state.seats.some((s) => s.human) ? "game" : "watched game"} (seed ${state.seed})`));
  });
  $("#watch-new").addEventListener("click", () => attempt(newWatch));
  $("#retry").addEventListener("click", () => attempt(retryAgent));
  $("#watch-pause").addEventListener("click", () => {
    ui.watchPaused = !ui.watchPaused;
    attempt(refreshWatch);
  });
  $("#watch-step").addEventListener("click", () => attempt(stepWatch));
  const delay = () => {
    const ms = watchDelay();
    $("#watch-delay").textContent = ms ? `${(ms / 1000).toFixed(1)} s between moves` : "no pause";
  };
  $("#watch-speed").addEventListener("input", delay);
  delay();
  $("#replay-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    $("#replay-choose").hidden = true;
    const text = await file.text();
    ui.replayFile = file.name;
    e.target.value = ""; // choosing the same file again loads it again
    attempt(() => openReplay(text, undefined, undefined, file.name));
  });
  $("#replay-choose").addEventListener("change", (e) => {
    if (e.target.value !== "") {
      attempt(() => openReplay(ui.replayContent, Number(e.target.value), undefined, ui.replayFile));
    }
  });
  $("#replay-first").addEventListener("click", () => attempt(() => showFrame(0)));
  $("#replay-prev").addEventListener("click", () => attempt(() => showFrame(ui.replay.index - 1)));
  $("#replay-next").addEventListener("click", () => attempt(() => showFrame(ui.replay.index + 1)));
  $("#replay-last").addEventListener("click", () => attempt(() => showFrame(ui.replay.count - 1)));
  $("#replay-slider").addEventListener("input", (e) => attempt(() => showFrame(Number(e.target.value))));
  document.addEventListener("keydown", (e) => {
    if (ui.view !== "replay" || !ui.replay || e.target.tagName === "INPUT") return;
    if (e.key === "ArrowRight") attempt(() => showFrame(ui.replay.index + 1));
    if (e.key === "ArrowLeft") attempt(() => showFrame(ui.replay.index - 1));
  });
  Analysis.wire();
}

async function main() {
  wire();
  await attempt(async () => {
    const { agents, analysers } = await api("GET", "/api/agents");
    $("#agent-list").replaceChildren(...agents.map((a) => new Option("", a)));
    $("#analyser").replaceChildren(...analysers.map((a) => new Option(a, a)));
  });
  showView(ui.view);
}

main();
