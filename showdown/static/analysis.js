// The analysis of a finished game (played, watched or replayed): the server's
// agents.analysis, polled while it runs, then drawn as a chart of each player's outlook, each
// player's biggest mistakes and every move; a move clicked shows its position with the
// played move, or one of the analyser's best, on the table. Text goes in as text (esc()).
"use strict";

const COLORS = ["#2f6f9f", "#c0602a", "#3f8f4f", "#8f3f8f"];
const SVG_NS = "http://www.w3.org/2000/svg";

function analysisShowing() {
  return Analysis.position !== null;
}

const Analysis = {
  id: null,
  result: null,
  position: null, // the move whose position the table shows, or null
  timer: null,

  reset() {
    clearTimeout(this.timer);
    this.id = null;
    this.result = null;
    this.position = null;
    document.querySelector("#analysis-body").hidden = true;
    document.querySelector("#analysis-progress").textContent = "";
    document.querySelector("#back-to-game").hidden = true;
    document.querySelector("#position").hidden = true;
    document.querySelector("#analyse").disabled = false;
  },

  leave() {
    // Back to the game's own table.
    this.position = null;
    document.querySelector("#back-to-game").hidden = true;
    document.querySelector("#position").hidden = true;
    document.querySelectorAll("#move-table tr.shown").forEach((r) => r.classList.remove("shown"));
  },

  target() {
    if (ui.view === "replay") return ui.replay ? { replay: ui.replay.id } : null;
    const id = store.getItem(`showdown.${ui.view}`);
    return id ? { game: id } : null;
  },

  async start() {
    const target = this.target();
    if (!target) throw new Error("open or finish a game first");
    const analyser = document.querySelector("#analyser").value;
    document.querySelector("#analyse").disabled = true;
    try {
      const answer = await api("POST", "/api/analyses", { ...target, analyser });
      this.id = answer.id;
      this.show(answer);
    } catch (err) {
      document.querySelector("#analyse").disabled = false;
      throw err;
    }
  },

  async poll() {
    if (!this.id) return;
    this.show(await api("GET", `/api/analyses/${this.id}`));
  },

  show(answer) {
    const progress = document.querySelector("#analysis-progress");
    document.body.dataset.analysis = answer.state;
    if (answer.state === "running") {
      progress.textContent = `Analysing… move ${answer.done + 1} of ${answer.total}`;
      this.timer = setTimeout(() => attempt(() => this.poll()), 300);
      drawn();
      return;
    }
    document.querySelector("#analyse").disabled = false;
    if (answer.state === "failed") {
      progress.textContent = "";
      message(answer.error, true);
      drawn();
      return;
    }
    this.result = answer.analysis;
    const a = this.result;
    progress.textContent = `By ${a.analyser}, ${a.cpu_seconds.toFixed(1)} s of CPU.` +
      (a.stopped ? ` Stopped early: ${a.stopped}.` : "");
    this.draw();
    drawn();
  },

  name(seat) {
    const names = this.result.names;
    return names ? `P${seat} ${names[seat]}` : `P${seat}`;
  },

  draw() {
    const a = this.result;
    document.querySelector("#analysis-body").hidden = false;
    this.chart();
    document.querySelector("#mistakes").innerHTML = a.players.map((p) => {
      const items = p.mistakes.map((k) => {
        const m = a.moves[k];
        return `<li data-move="${k}">move ${k}: ${esc(m.played.text)} <span class="loss">−${esc(m.loss.toFixed(1))}</span>` +
          ` (best: ${esc(m.best[0].text)}, ${esc(m.best[0].points)} points)</li>`;
      });
      const mean = p.mean_loss === null ? "-" : p.mean_loss.toFixed(2);
      return `<li class="player" data-seat="${p.seat}"><b>${esc(this.name(p.seat))}</b>: lost ` +
        `${esc(p.total_loss.toFixed(1))} points of value in ${esc(p.moves)} moves (${esc(mean)} a move)` +
        `<ol>${items.join("") || "<li>no mistake</li>"}</ol></li>`;
    }).join("");
    document.querySelector("#move-table").innerHTML = a.moves.map((m) => {
      const loss = m.loss === null ? "?" : m.loss > 0.005 ? `−${m.loss.toFixed(1)}` : "best";
      return `<tr data-move="${m.index}"><td>${m.index}</td><td>${esc(this.name(m.seat))}</td>` +
        `<td>${esc(m.played.text)} (${esc(m.played.points)})</td><td class="loss">${esc(loss)}</td></tr>`;
    }).join("");
  },

  chart() {
    // Each player's outlook at their turns: the margin they may expect at the end.
    const a = this.result;
    const svg = document.querySelector("#chart");
    const W = 400, H = 160, pad = 24;
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.replaceChildren();
    const n = a.moves.length;
    const values = a.moves.map((m) => m.outlook).concat(a.complete ? a.final_outlook : []);
    const top = Math.max(10, ...values.map(Math.abs));
    const x = (k) => pad + (W - 2 * pad) * (n ? k / n : 0);
    const y = (v) => H / 2 - (H / 2 - 12) * (v / top);
    const add = (tag, attrs, text) => {
      const el = document.createElementNS(SVG_NS, tag);
      for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
      if (text !== undefined) el.textContent = text;
      svg.appendChild(el);
      return el;
    };
    add("line", { x1: pad, x2: W - pad, y1: y(0), y2: y(0), stroke: "#999", "stroke-dasharray": "3 3" });
    add("text", { x: 2, y: 12, "font-size": 10, fill: "#555" }, `+${Math.round(top)}`);
    add("text", { x: 2, y: H - 4, "font-size": 10, fill: "#555" }, `−${Math.round(top)}`);
    add("text", { x: W - pad, y: H - 4, "font-size": 10, fill: "#555", "text-anchor": "end" }, `move ${n}`);
    const legend = [];
    for (let seat = 0; seat < a.num_players; seat++) {
      const mine = a.moves.filter((m) => m.seat === seat);
      const points = mine.map((m) => [x(m.index), y(m.outlook)]);
      if (a.complete) points.push([x(n), y(a.final_outlook[seat])]);
      const color = COLORS[seat % COLORS.length];
      add("polyline", { points: points.map((p) => p.join(",")).join(" "), fill: "none",
        stroke: color, "stroke-width": 2 });
      for (const k of a.players[seat].mistakes) {
        const c = add("circle", { cx: x(k), cy: y(a.moves[k].outlook), r: 4, fill: color,
          stroke: "#fff", class: "mistake" });
        c.dataset.move = k;
      }
      legend.push(`<span><svg width="12" height="12"><rect width="12" height="12" fill="${color}"/></svg> ` +
        `${esc(this.name(seat))}</span>`);
    }
    document.querySelector("#chart-legend").innerHTML = legend.join("") +
      "<br><small>Outlook: the final margin each player may expect (+20 for a win), by the " +
      "learned search's networks; dots are the biggest mistakes. Click a move to see it.</small>";
  },

  async showMove(k, alt) {
    const a = this.result;
    if (!a || !a.moves[k]) return;
    const url = `/api/analyses/${this.id}/positions/${k}` + (alt === null ? "" : `?alt=${alt}`);
    const frame = await api("GET", url);
    this.position = k;
    drawBoard(frame.board, frame.tiles_on_table);
    const m = a.moves[k];
    document.querySelector("#back-to-game").hidden = false;
    document.querySelector("#position").hidden = false;
    document.querySelector("#status").textContent = `The table before move ${k}, as analysed:`;
    const loss = m.loss === null ? "" : m.loss > 0.005 ? `, lost ${m.loss.toFixed(1)}` : ", the best move";
    document.querySelector("#position-title").textContent =
      `Move ${k}: ${this.name(m.seat)} ${m.played.text} (${m.played.points} points${loss})`;
    const items = [[null, m.played, "played"]].concat(m.best.map((b, i) => [i, b, `best ${i + 1}`]));
    document.querySelector("#alternatives").innerHTML = items.map(([i, b, label]) => {
      const value = b.value === null ? "?" : b.value.toFixed(1);
      const shown = i === alt ? " shown" : "";
      return `<li class="alt${shown}" data-alt="${i === null ? "" : i}">${esc(label)}: ${esc(b.text)}, ` +
        `${esc(b.points)} points, value ${esc(value)}</li>`;
    }).join("");
    document.querySelectorAll("#move-table tr").forEach((r) =>
      r.classList.toggle("shown", Number(r.dataset.move) === k));
    document.body.dataset.position = `${k}:${alt === null ? "played" : alt}`;
    if (alt === null && window.innerWidth <= 800) {
      document.querySelector("#table-area").scrollIntoView(); // the table is above the panel
    } else if (alt === null) {
      document.querySelector("#side").scrollTop = 0; // the position's moves head the panel
    }
    drawn();
  },

  backToGame() {
    this.leave();
    if (ui.view === "replay") return attempt(() => showFrame(ui.replay.index));
    const state = ui.state[ui.view];
    if (state) drawGame(state);
  },

  wire() {
    const on = (sel, fn) => document.querySelector(sel).addEventListener("click", fn);
    on("#analyse", () => attempt(() => this.start()));
    on("#back-to-game", () => this.backToGame());
    const pick = (e) => {
      const item = e.target.closest("[data-move]");
      if (item) attempt(() => this.showMove(Number(item.dataset.move), null));
    };
    on("#mistakes", pick);
    on("#move-table", pick);
    on("#chart", (e) => {
      if (e.target.dataset.move !== undefined) return pick(e);
      // the move nearest the click
      const box = e.currentTarget.getBoundingClientRect();
      const n = this.result ? this.result.moves.length : 0;
      const k = Math.round(((e.clientX - box.left) / box.width * 400 - 24) / (352 / n));
      if (n) attempt(() => this.showMove(Math.max(0, Math.min(n - 1, k)), null));
    });
    on("#alternatives", (e) => {
      const item = e.target.closest("li.alt");
      if (!item || this.position === null) return;
      const alt = item.dataset.alt === "" ? null : Number(item.dataset.alt);
      attempt(() => this.showMove(this.position, alt));
    });
  },
};
