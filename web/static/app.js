// The Zanzibar arena: a little vanilla JavaScript over the JSON API (no build step).
"use strict";
const $ = (id) => document.getElementById(id);
let game = null;        // the state of the game being played
let replay = null;      // {source: "file" | "game", name, game, step, steps}
let tournamentId = null;

function showError(message) {
  const e = $("error");
  e.textContent = message || "";
  e.hidden = !message;
}

async function api(path, body) {
  const opts = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)};
  const r = await fetch(path, opts);
  const data = await r.json().catch(() => ({error: `HTTP ${r.status}`}));
  if (!r.ok) { showError(data.error || `HTTP ${r.status}`); throw new Error(data.error); }
  showError("");
  return data;
}

function fmt(v) { return (v >= 0 ? "+" : "") + v.toFixed(3); }

function valueTable(table, rows, chosen, best) {
  table.innerHTML = "<tr><th>Hold</th><th>Value</th><th>Loss vs best</th></tr>";
  for (const r of rows) {
    const tr = document.createElement("tr");
    tr.dataset.action = r.action;
    tr.dataset.value = r.value;
    if (r.action === best || r.loss === 0) tr.classList.add("best");
    if (r.action === chosen) tr.classList.add("chosen");
    tr.innerHTML = `<td class="hold"></td><td class="value">${fmt(r.value)}</td><td class="loss">${r.loss.toFixed(3)}</td>`;
    tr.querySelector(".hold").textContent = r.text;
    table.appendChild(tr);
  }
}

function showGame(state, feedback) {
  game = state;
  $("table").innerHTML = state.svg;
  const holds = $("holds");
  holds.innerHTML = "";
  for (const h of state.legal || []) {
    const b = document.createElement("button");
    b.type = "button"; b.className = "hold"; b.dataset.action = h.action; b.textContent = h.text;
    b.onclick = () => play(h.action);
    holds.appendChild(b);
  }
  document.querySelectorAll(".values-mean").forEach((p) => { p.textContent = "Value: " + state.values_mean; });
  $("hint-panel").hidden = !state.hints;
  if (state.hints_error) showError(state.hints_error);
  if (state.hints) valueTable($("hint-table"), state.hints, -1, -1);
  if (feedback) {
    $("feedback").hidden = false;
    const cost = feedback.cost;
    const verdict = cost === null ? ` (${feedback.note})` : cost > 1e-9
      ? `; the best was "${feedback.best_text}", so your choice cost ${cost.toFixed(3)}.` : ", a best choice (cost 0).";
    $("feedback-text").textContent = `Dice ${feedback.dice.join("-")}, roll ${feedback.roll}: you chose "${feedback.text}"` + verdict;
    valueTable($("feedback-table"), feedback.values, feedback.action, feedback.best);
  }
  const log = $("log");
  for (const line of state.log) { const li = document.createElement("li"); li.textContent = line; log.appendChild(li); }
  log.scrollTop = log.scrollHeight;
  $("game-over").hidden = !state.over;
  if (state.over) $("download").href = `/api/games/${state.id}/record`;
  document.body.dataset.gameOver = state.over ? "1" : "0";
  document.body.dataset.decisions = String(state.decisions);
}

async function newGame(ev) {
  ev.preventDefault();
  $("log").innerHTML = ""; $("feedback").hidden = true;
  const body = {ruleset: $("ruleset").value, players: +$("players").value, seat: +$("seat").value,
                bots: [$("bot").value], hints: $("hints-toggle").checked};
  showGame(await api("/api/games", body));
}

async function play(action) {
  document.querySelectorAll("#holds button").forEach((b) => { b.disabled = true; });
  const r = await api(`/api/games/${game.id}/move`, {action});
  showGame(r.state, r.feedback);
}

async function toggleHints() {
  if (!game || game.over) return;
  showGame(await api(`/api/games/${game.id}/hints`, {hints: $("hints-toggle").checked}));
}

// ---- replays --------------------------------------------------------------------------------------
async function replayShow() {
  const url = replay.source === "game" ? `/api/games/${replay.id}/replay?step=${replay.step}`
    : `/api/replays/${encodeURIComponent(replay.name)}?game=${replay.game}&step=${replay.step}`;
  const f = await api(url);
  replay.steps = f.steps;
  $("replay-svg").innerHTML = f.svg;
  $("replay-step").textContent = `${f.step + 1} / ${f.steps}`;
  $("replay-status").textContent = f.status;
  document.body.dataset.replayAtEnd = f.step + 1 === f.steps ? "1" : "0";
}

async function replayLoad() {
  replay = {source: "file", name: $("replay-file").value, game: +$("replay-game").value, step: 0};
  await replayShow();
}

async function replayMove(delta) {
  if (!replay) return;
  replay.step = Math.max(0, Math.min(replay.steps - 1, replay.step + delta));
  await replayShow();
}

async function replayEnd() { if (replay) { replay.step = replay.steps - 1; await replayShow(); } }

async function replayThis() {
  replay = {source: "game", id: game.id, step: 0};
  selectTab("replay");
  await replayShow();
}

async function loadReplayFiles() {
  const r = await api("/api/replays");
  const sel = $("replay-file");
  sel.innerHTML = "";
  for (const f of r.files) { const o = document.createElement("option"); o.textContent = f; sel.appendChild(o); }
  $("replay-note").textContent = r.note || "";
}

// ---- tournaments ----------------------------------------------------------------------------------
async function startTournament() {
  const body = {ruleset: $("ruleset").value, bots: $("t-bots").value.split(",").map((s) => s.trim()).filter(Boolean),
                players: +$("t-players").value, games: +$("t-games").value};
  const t = await api("/api/tournaments", body);
  tournamentId = t.id;
  showTournament(t);
  pollTournament();
}

function showTournament(t) {
  $("t-progress").textContent = `${t.played} of ${t.games} games played${t.done ? " - finished" : ""}${t.error ? " - " + t.error : ""}`;
  document.body.dataset.tournamentDone = t.done ? "1" : "0";
  const body = $("t-table").querySelector("tbody");
  body.innerHTML = "";
  for (const r of t.standings) {
    const tr = document.createElement("tr");
    const rate = r.rate === null ? "-" : (100 * r.rate).toFixed(1) + "%";
    tr.innerHTML = `<td></td><td>${r.seats}</td><td>${r.wins}</td><td>${rate}</td>` +
      `<td>${(100 * r.low).toFixed(1)}% - ${(100 * r.high).toFixed(1)}%</td>`;
    tr.firstChild.textContent = r.bot;
    body.appendChild(tr);
  }
}

async function pollTournament() {
  const id = tournamentId;
  while (id === tournamentId) {
    const t = await api(`/api/tournaments/${id}`);
    showTournament(t);
    if (t.done) return;
    await new Promise((ok) => setTimeout(ok, 400));
  }
}

// ---- the solved policy, the rules -----------------------------------------------------------------
function dice(text) { return text.trim().split(/[\s,-]+/).filter(Boolean).map(Number); }

async function ask() {
  const hands = $("ask-hands").value.split(";").map((h) => h.trim()).filter(Boolean).map(dice);
  const body = {ruleset: $("ruleset").value, players: +$("ask-players").value, hands,
                first_rolls: +$("ask-first").value, dice: dice($("ask-dice").value), roll: +$("ask-roll").value};
  const r = await api("/api/ask", body);
  const out = $("ask-result");
  out.innerHTML = `<p id="ask-best"></p><p class="note"></p><table id="ask-table"></table>`;
  out.querySelector("#ask-best").textContent = `Best: ${r.best_text}, better than the next hold by ${r.margin.toFixed(3)} ` +
    `(you are seat ${r.seat + 1} in order of play; roll limit ${r.roll_limit}).`;
  out.querySelector(".note").textContent = "Value: " + r.values_mean;
  valueTable(out.querySelector("#ask-table"), r.values, -1, r.best);
}

async function showRules() {
  const r = await api(`/api/rules/${encodeURIComponent($("ruleset").value)}`);
  $("help-name").textContent = r.name;
  $("help-description").textContent = r.description;
  const ul = $("help-rules");
  ul.innerHTML = "";
  for (const line of r.rules) { const li = document.createElement("li"); li.textContent = line; ul.appendChild(li); }
}

function selectTab(name) {
  document.querySelectorAll(".panel").forEach((p) => { p.hidden = p.id !== name; });
  document.querySelectorAll("nav .tab").forEach((b) => { b.classList.toggle("on", b.dataset.tab === name); });
  if (name === "replay") loadReplayFiles();
}

async function init() {
  const m = await api("/api/meta");
  for (const r of m.rulesets) { const o = document.createElement("option"); o.textContent = r; $("ruleset").appendChild(o); }
  for (const b of m.bots) { const o = document.createElement("option"); o.textContent = b; $("bot").appendChild(o); }
  $("ruleset").value = "classic";
  $("bot").value = "greedy";
  document.querySelectorAll("nav .tab").forEach((b) => { b.onclick = () => selectTab(b.dataset.tab); });
  $("new-form").onsubmit = newGame;
  $("hints-toggle").onchange = toggleHints;
  $("replay-load").onclick = replayLoad;
  $("replay-prev").onclick = () => replayMove(-1);
  $("replay-next").onclick = () => replayMove(1);
  $("replay-end").onclick = replayEnd;
  $("replay-this").onclick = replayThis;
  $("t-start").onclick = startTournament;
  $("ask-go").onclick = ask;
  $("ruleset").onchange = showRules;
  await showRules();
  document.body.dataset.ready = "1";
}

init().catch((e) => showError(String(e)));
