// The page of `splitpoker play`. It holds no rules: validity, row types, the automatic
// arrangement, the hint and the payoffs all come from the server's API.
"use strict";

const SUITS = { s: "♠", h: "♥", d: "♦", c: "♣" };
const RANKS = "23456789TJQKA";
const SUIT_SORT = "shcd";
const JOKER_NAMES = { BJ: ["小王", "BJ"], RJ: ["大王", "RJ"] };

let match = null;      // the state from the server
let rows = [];         // the cards placed in each row
let loose = [];        // the cards not placed yet
let active = 0;        // the row a clicked card goes to
let sortBy = "rank";
let checkId = 0;       // the latest validity check (older answers are ignored)
let deadline = null;   // performance.now() at which the clock runs out
let ticker = null;
let busy = false;

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") node.textContent = value;
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

async function api(path, body) {
  const options = body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" },
                                               body: JSON.stringify(body) };
  const response = await fetch(path, options);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function showError(error) {
  $("error").hidden = !error;
  $("error").textContent = error ? String(error.message || error) : "";
}

// ---------------------------------------------------------------- cards

function rankValue(card) { return card.length === 2 && card[1] !== "J" ? RANKS.indexOf(card[0]) : (card === "RJ" ? -1 : -2); }
function suitValue(card) { return card in JOKER_NAMES ? -1 : 3 - SUIT_SORT.indexOf(card[1]); }

function sortCards(cards) {
  const bySuit = (a, b) => suitValue(b) - suitValue(a) || rankValue(a) - rankValue(b);
  const byRank = (a, b) => rankValue(a) - rankValue(b) || suitValue(a) - suitValue(b);
  return [...cards].sort(sortBy === "suit" ? bySuit : byRank);
}

function cardNode(card, small = false) {
  const joker = JOKER_NAMES[card];
  const red = joker ? card === "RJ" : "hd".includes(card[1]);
  const node = el("div", { class: `card${red ? " red" : ""}${joker ? " joker" : ""}${small ? " small" : ""}`,
                           "data-card": card, title: card });
  if (joker) node.append(el("span", { class: "rank", text: joker[0] }), el("span", { class: "suit", text: joker[1] }));
  else node.append(el("span", { class: "rank", text: card[0] === "T" ? "10" : card[0] }),
                   el("span", { class: "suit", text: SUITS[card[1]] }));
  return node;
}

function cardsNode(cards) { return el("div", { class: "cards" }, cards.map((c) => cardNode(c, true))); }

// ---------------------------------------------------------------- arranging

function sizes() { return match.row_sizes; }

function moveCard(card, target) {
  // target: a row index, or -1 for the loose cards
  if (target >= 0 && rows[target].length >= sizes()[target]) return false;
  loose = loose.filter((c) => c !== card);
  rows = rows.map((row) => row.filter((c) => c !== card));
  if (target >= 0) rows[target].push(card); else loose.push(card);
  return true;
}

function placeClicked(card) {
  const order = [active, ...sizes().map((_, k) => k).filter((k) => k !== active)];
  const target = order.find((k) => rows[k].length < sizes()[k]);
  if (target === undefined) return;
  moveCard(card, target);
  if (rows[active].length >= sizes()[active]) {
    const next = sizes().findIndex((size, k) => rows[k].length < size);
    if (next >= 0) active = next;
  }
  arranged();
}

function setRows(newRows) {
  rows = newRows.map((row) => [...row]);
  loose = [];
  arranged();
}

function dropZone(node, target) {
  node.addEventListener("dragover", (event) => { event.preventDefault(); node.classList.add("over"); });
  node.addEventListener("dragleave", () => node.classList.remove("over"));
  node.addEventListener("drop", (event) => {
    event.preventDefault();
    node.classList.remove("over");
    const card = event.dataTransfer.getData("text/plain");
    if (card && moveCard(card, target)) arranged();
  });
}

function playableCard(card, placed) {
  const node = cardNode(card);
  node.draggable = true;
  node.addEventListener("dragstart", (event) => event.dataTransfer.setData("text/plain", card));
  node.addEventListener("click", () => {
    if (busy) return;
    if (placed) { moveCard(card, -1); arranged(); } else placeClicked(card);
  });
  return node;
}

function drawTable(types = null) {
  const box = $("rows");
  box.replaceChildren();
  match.row_names.forEach((name, k) => {
    const zone = el("div", { class: "zone", id: `row-${k}` }, sortCards(rows[k]).map((c) => playableCard(c, true)));
    dropZone(zone, k);
    const label = el("div", { class: "label" }, [el("b", { text: name }),
      el("span", { id: `type-${k}`, text: types ? types[k].replace(/_/g, " ") : `${rows[k].length} / ${sizes()[k]}` })]);
    label.addEventListener("click", () => { active = k; drawTable(types); });
    zone.addEventListener("click", (event) => { if (event.target === zone) { active = k; drawTable(types); } });
    box.append(el("div", { class: `row${k === active ? " active" : ""}` }, [label, zone]));
  });
  const hand = $("hand");
  hand.replaceChildren(...sortCards(loose).map((c) => playableCard(c, false)));
}

async function arranged() {
  const full = rows.every((row, k) => row.length === sizes()[k]);
  $("submit").disabled = true;
  drawTable();
  const status = $("status");
  if (!full) {
    status.className = "";
    status.textContent = loose.length ? `${loose.length} card${loose.length > 1 ? "s" : ""} to place` : "";
    return;
  }
  const id = ++checkId;
  try {
    const check = await api(`/api/matches/${match.id}/check`, { hand: match.hand.number, rows });
    if (id !== checkId) return;
    drawTable(check.types);
    status.className = check.valid ? "good" : "bad";
    status.textContent = check.valid ? "valid: ready to submit" : `${match.invalid_name}: ${check.reason}`;
    $("submit").disabled = !check.valid || busy;
    if (check.valid) {  // kept by the server: played if the clock runs out, restored after a reload
      api(`/api/matches/${match.id}/save`, { hand: match.hand.number, rows }).catch(() => {});
    }
  } catch (error) { showError(error); }
}

// ---------------------------------------------------------------- the clock

function startClock(remaining) {
  stopClock();
  if (remaining === null || remaining === undefined) return;
  deadline = performance.now() + remaining * 1000;
  $("clock").hidden = false;
  tick();
  ticker = setInterval(tick, 200);
}

function stopClock() {
  if (ticker) clearInterval(ticker);
  ticker = null;
  deadline = null;
  $("clock").hidden = true;
}

function tick() {
  const left = Math.max(0, (deadline - performance.now()) / 1000);
  $("clock").textContent = `time left: ${left.toFixed(1)} s`;
  $("clock").classList.toggle("low", left < 10);
  if (left <= 0) { stopClock(); timeUp(); }
}

async function timeUp() {
  busy = true;
  // a complete arrangement goes with the time-out: the server plays it if it is valid
  const full = rows.every((row, k) => row.length === sizes()[k]);
  const body = full ? { hand: match.hand.number, rows } : { hand: match.hand.number };
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      showRevealed(await api(`/api/matches/${match.id}/timeout`, body));
      return;
    } catch (error) {
      if (!String(error.message).startsWith("the time is not up")) { showError(error); return; }
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
  }
}

// ---------------------------------------------------------------- a hand

function roleText(hand) {
  const parts = [`Hand ${hand.number + 1} of ${match.settings.hands}`,
                 `dealt first: ${match.seats[hand.first]}`];
  if (hand.banker !== null) parts.push(`banker: ${match.seats[hand.banker]}`);
  return parts.join(" · ");
}

function showHand() {
  const hand = match.hand;
  $("reveal").hidden = true;
  $("done").hidden = true;
  $("hints").replaceChildren();
  if (!hand) { showDone(); return; }
  $("table").hidden = false;
  $("info").textContent = roleText(hand);
  rows = match.row_names.map(() => []);
  loose = [...hand.cards];
  if (hand.saved) {  // the arrangement kept before a reload
    rows = hand.saved.map((row) => [...row]);
    const placed = new Set(rows.flat());
    loose = hand.cards.filter((card) => !placed.has(card));
  }
  active = 0;
  busy = false;
  arranged();
  startClock(hand.remaining);
}

async function submit() {
  if (busy) return;
  busy = true;
  const saved = deadline;
  stopClock();
  $("submit").disabled = true;
  try {
    showRevealed(await api(`/api/matches/${match.id}/submit`, { hand: match.hand.number, rows }));
  } catch (error) {
    busy = false;
    showError(error);
    if (saved !== null) startClock((saved - performance.now()) / 1000);
    arranged();
  }
}

function signed(x) { return `${x > 0 ? "+" : ""}${x}`; }
function amountCell(x) { return el("td", { class: `num ${x > 0 ? "pos" : x < 0 ? "neg" : ""}`, text: signed(x) }); }
function ordinal(n) { return `${n}${n === 1 ? "st" : n === 2 ? "nd" : n === 3 ? "rd" : "th"}`; }

function showRevealed(answer) {
  stopClock();
  const reveal = answer.reveal;
  match = answer.state;
  $("table").hidden = true;
  $("reveal").hidden = false;
  $("reveal-title").textContent = `Hand ${reveal.hand + 1}: you ${signed(reveal.seats[0].payoff)}`
    + (reveal.timed_out ? " (time ran out: your hand was arranged automatically)" : "");
  // every seat's rows, row by row with each seat's place in the row
  const head = el("tr", {}, [el("th", { text: "" }), ...reveal.seats.map((s) => {
    const flags = [];
    if (s.seat === reveal.banker) flags.push(el("span", { class: "flag", text: "banker" }));
    if (s.seat === reveal.first) flags.push(el("span", { class: "flag", text: "dealt first" }));
    if (s.fouled) flags.push(el("span", { class: "flag", text: "fouled" }));
    if (s.special) flags.push(el("span", { class: "flag", text: `special hand (报到) ${s.special}` }));
    if (s.xi) flags.push(el("span", { class: "flag", text: `喜 ×${s.xi}` }));
    return el("th", {}, [match.seats[s.seat], ...flags]);
  })]);
  const body = reveal.row_names.map((name, k) => el("tr", {}, [el("th", { text: name }), ...reveal.seats.map((s) => {
    const place = reveal.row_places[k][s.seat];
    return el("td", {}, [cardsNode(s.rows[k]), el("div", { class: `place${place === 1 ? " first" : ""}`,
      text: `${s.types[k].replace(/_/g, " ")} · ${ordinal(place)}` })]);
  })]));
  const total = el("tr", {}, [el("th", { text: "payoff" }), ...reveal.seats.map((s) => amountCell(s.payoff))]);
  $("reveal-rows").replaceChildren(el("table", { id: "reveal-table" }, [head, ...body, total]));
  // the payoff item by item, per seat: one line per opponent (or the whole table)
  const items = reveal.seats.map((s) => {
    const mine = reveal.items.filter((i) => i.seat === s.seat);
    const groups = [...new Set(mine.map((i) => i.against))];
    const lines = groups.map((against) => {
      const group = mine.filter((i) => i.against === against);
      const sum = group.reduce((total, i) => total + i.amount, 0);
      const parts = group.map((i) => el("span", { class: "item" }, [
        `${itemName(i, reveal.row_names)} `, el("span", { class: i.amount > 0 ? "pos" : "neg", text: signed(i.amount) })]));
      return el("tr", {}, [el("td", { text: against === null ? "the table" : `vs ${match.seats[against]}` }),
                           el("td", {}, parts), amountCell(sum)]);
    });
    const summary = el("summary", { text: `${match.seats[s.seat]}: ${signed(s.payoff)}` });
    const details = el("details", {}, [summary, el("table", { class: "items" }, lines)]);
    if (s.seat === 0) details.open = true;
    return details;
  });
  $("reveal-items").replaceChildren(...items);
  $("next").textContent = match.finished ? "Show the result" : "Next hand";
  drawTotals();
}

function itemName(item, rowNames) {
  const row = item.row === null ? "" : rowNames[item.row];
  const detail = item.detail.replace(/_/g, " ");
  if (item.kind === "row") return row;
  if (item.kind === "royalty") return `royalty ${row}`;
  if (item.kind === "pot") return `${row} (${detail})`;
  if (item.kind === "xi") return `喜 ${detail}`;
  return `${item.kind.replace(/_/g, " ")}${detail ? ` (${detail})` : ""}`;
}

function showDone() {
  $("table").hidden = true;
  $("reveal").hidden = true;
  $("done").hidden = false;
  const you = match.totals[0];
  const best = Math.max(...match.totals);
  $("done-text").textContent = `${match.played} hands played. You ${signed(you)}`
    + (you === best ? " — the best total at the table." : ".");
  $("download").href = `/api/matches/${match.id}/record`;
}

function drawTotals() {
  const seats = match.seats;
  const head = el("tr", {}, [el("th", { text: "hand" }), ...seats.map((name) => el("th", { class: "num", text: name }))]);
  const lines = match.history.map((h) => el("tr", {}, [el("td", { text: `${h.hand + 1}${h.timed_out ? " (timed out)" : ""}` }),
                                                       ...h.payoffs.map(amountCell)]));
  const totals = el("tr", { id: "totals-row" }, [el("th", { text: "total" }), ...match.totals.map(amountCell)]);
  $("totals").replaceChildren(head, ...lines, totals);
}

// ---------------------------------------------------------------- buttons

async function auto() {
  try { setRows((await api(`/api/matches/${match.id}/auto`, { hand: match.hand.number })).rows); }
  catch (error) { showError(error); }
}

async function hint() {
  const box = $("hints");
  box.replaceChildren(el("p", { text: "the solver is thinking…" }));
  try {
    const answer = await api(`/api/matches/${match.id}/hint`, { hand: match.hand.number });
    const list = answer.splits.map((split) => {
      const use = el("button", { type: "button", text: "use" });
      use.addEventListener("click", () => setRows(split.rows));
      return el("li", {}, [`EV ${signed(split.ev.toFixed(2))}: `, ...split.rows.flatMap((row, k) =>
        [k ? " | " : "", ...row.map((c) => c.replace(/([2-9TJQKA])([shdc])/, (_, r, s) => r + SUITS[s]) + " ")]),
        use]);
    });
    box.replaceChildren(el("p", { text: `The solver's best splits (${answer.samples} sampled deals of the other hands):` }),
                        el("ol", {}, list));
  } catch (error) { box.replaceChildren(); showError(error); }
}

async function newMatch() {
  showError(null);
  try {
    const created = await api("/api/matches", {});
    localStorage.setItem("splitpoker-match", created.id);  // a reload resumes it (its secret is a cookie)
    await openMatch(created.id);
  } catch (error) { showError(error); }
}

async function openMatch(id) {
  match = await api(`/api/matches/${id}`);
  $("title").textContent = `${match.game} (${match.settings.preset}), ${match.seats.length} players, against ${match.settings.against.join(", ")}`;
  drawTotals();
  showHand();
}

async function resume() {
  const id = localStorage.getItem("splitpoker-match");
  try { if (id) { await openMatch(id); return; } } catch (error) { /* gone, or not this browser's: a new one */ }
  newMatch();
}

async function nextHand() {
  showError(null);
  try {
    match = await api(`/api/matches/${match.id}`);
    showHand();
  } catch (error) { showError(error); }
}

$("sort-rank").addEventListener("click", () => { sortBy = "rank"; drawTable(); arranged(); });
$("sort-suit").addEventListener("click", () => { sortBy = "suit"; drawTable(); arranged(); });
$("clear").addEventListener("click", () => { loose = [...match.hand.cards]; rows = rows.map(() => []); active = 0; arranged(); });
$("auto").addEventListener("click", auto);
$("hint").addEventListener("click", hint);
$("submit").addEventListener("click", submit);
$("next").addEventListener("click", nextHand);
$("new-match").addEventListener("click", newMatch);
dropZone($("hand"), -1);
resume();
