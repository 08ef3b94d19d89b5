// The page of `splitpoker play`. It holds no rules: validity, row types, special hands,
// the automatic arrangement, the suggestions and the payoffs all come from the server's
// API. What it adds is presentation: the two languages, card pickers, swaps and keys.
"use strict";

const RANKS = "23456789TJQKA";
const SUIT_SYMBOL = { s: "♠", h: "♥", d: "♦", c: "♣" };
const SUIT_SORT = "shcd";
// the jokers by language: on the card, and in words
const JOKERS = { BJ: { zh: "小王", en: "Little", name: "Little Joker" }, RJ: { zh: "大王", en: "Big", name: "Big Joker" } };

// ---------------------------------------------------------------- the two languages

const TEXT = {
  en: {
    rules: "Rules", lang_button: "中文", your_hand: "Your hand",
    hand_help: "tap a card to place it in the highlighted row, or drag it; tap two placed cards to swap them; keys: Enter selects, 1/2/3 place, Backspace takes back",
    sort_rank: "Sort by rank", sort_suit: "Sort by suit", clear: "Take all back", auto: "Auto-arrange",
    hint: "Suggest", submit: "Submit", match_over: "The match is over",
    download: "Download the match (JSON)", new_match: "New match", totals: "Totals", earlier_hands: "Earlier hands",
    you: "you", seat: "Seat {n}", hand_of: "Hand {n} of {m}", dealt_first: "dealt first: {seat}",
    banker: "banker", banker_is: "banker: {seat}", first: "dealt first", fouled: "fouled",
    to_place: "{n} to place", valid: "valid: ready to submit", checking: "checking…",
    invalid: "{name}: {what}", beats: "beats", ties: "ties with",
    row_full: "the {row} row is full", selected: "{card} selected: 1/2/3 places it, Backspace takes it back",
    pull_into: "Pull into {row}:", none_of: "no {kind} among the unplaced cards that fits the {row} row",
    special_title: "报到 · special hand: {name}",
    special_text: "It is scored automatically; your rows are not compared. Each opponent without a special hand pays you {paid}. Submit any valid arrangement.",
    special_text_unknown: "It is scored automatically; your rows are not compared. Submit any valid arrangement.",
    play_special: "Arrange and submit",
    suggestions: "Suggested arrangements ({samples} sampled deals of the other hands):",
    thinking: "the solver is thinking…", use: "Use", ev: "EV {ev}",
    hand_result: "Hand {n}: you {payoff}", time_auto: " (time ran out: your hand was arranged automatically)",
    time_played: " (time ran out: your arrangement was played)",
    payoff: "payoff", breakdown: "Payoff breakdown", the_table: "the table", vs: "vs {seat}",
    next_hand: "Next hand", show_result: "Show the result", timed_out: "(timed out)", hand: "hand", total: "total",
    done_text: "{n} hands played. You {total}", best: " — the best total at the table.",
    not_compared: "rows not compared", special_flag: "报到 {name}",
    scoop: "打枪 scoop", scoop_event: "打枪 (scoop): {a} won all three rows against {b}",
    home_run: "全垒打 home run", home_run_event: "全垒打 (home run): {a} scooped every opponent",
    place: "{n}", loading: "loading…",
    resumed_other: "That match belongs to another browser (or is over on the server): a new match was started.",
    preset: "Preset", switch: "switch", value: "value", tables: "Payment tables",
    more_rows: "more rows won", royalty: "royalty {row}", row_item: "{row}", pot_item: "{row} (place {n})",
    special_item: "报到 {name}", xi_item: "喜 {name} ×{n}", majority: "more rows won",
    unit_paid: "paid", unit_value: "ranks as", warn_leave: "A hand is being arranged: leave the page?",
    played_hand: "Hand {n}: you {payoff}",
    multi: "Select several", choose_for: "Choose for {row}:", chosen: "{n} chosen: tap a row to place them",
    no_room: "the {row} row has room for {n} more", swap_rows: "Swap {a} and {b}",
    moved_on: "Hand {n} was played in another tab: hand {m} is loaded.",
    moved_on_done: "Hand {n} was played in another tab, and the match is over.",
    row_won: "won against {seat}", row_lost: "lost to {seat}", row_tied: "tied with {seat}",
    xi_named: "喜 {names}", xi_held: "this arrangement makes 喜: {names}",
    replay: "Replay step by step", replay_step: "Step {i} of {n}: {what}", step_deal: "the deal",
    step_arranged: "{seat} arranges", step_compare: "the {row} rows compared", step_result: "the result",
    step_prev: "Back", step_next: "Next step", step_all: "Whole result",
  },
  zh: {
    rules: "规则", lang_button: "English", your_hand: "手牌",
    hand_help: "点牌放入高亮的一道，或拖动；点两张已放的牌交换；键盘：Enter 选牌，1/2/3 放入，Backspace 收回",
    sort_rank: "按点数排", sort_suit: "按花色排", clear: "全部收回", auto: "自动理牌",
    hint: "推荐牌型", submit: "出牌", match_over: "比赛结束",
    download: "下载比赛记录（JSON）", new_match: "新比赛", totals: "总分", earlier_hands: "之前的牌局",
    you: "你", seat: "座位 {n}", hand_of: "第 {n} 局 / 共 {m} 局", dealt_first: "先发牌：{seat}",
    banker: "庄家", banker_is: "庄家：{seat}", first: "先发牌", fouled: "倒水",
    to_place: "还有 {n} 张未放", valid: "牌型有效，可以出牌", checking: "检查中…",
    invalid: "{name}：{what}", beats: "大于", ties: "等于",
    row_full: "{row}已满", selected: "已选 {card}：按 1/2/3 放入，Backspace 收回",
    pull_into: "放入{row}：", none_of: "未放的牌中没有能放进{row}的{kind}",
    special_title: "报到：{name}",
    special_text: "自动计分，不比牌道。每家没有特殊牌型的对手付你 {paid} 分。提交任意有效的摆法即可。",
    special_text_unknown: "自动计分，不比牌道。提交任意有效的摆法即可。",
    play_special: "摆好并出牌",
    suggestions: "推荐牌型（模拟其他玩家 {samples} 副牌）：",
    thinking: "计算中…", use: "使用", ev: "期望 {ev}",
    hand_result: "第 {n} 局：你 {payoff}", time_auto: "（超时：已自动理牌）", time_played: "（超时：按你摆好的牌出牌）",
    payoff: "得分", breakdown: "得分明细", the_table: "全桌", vs: "对 {seat}",
    next_hand: "下一局", show_result: "查看结果", timed_out: "（超时）", hand: "局", total: "总分",
    done_text: "共打 {n} 局。你 {total}", best: "，全桌最高。",
    not_compared: "不比牌道", special_flag: "报到 {name}",
    scoop: "打枪", scoop_event: "打枪：{a} 三道全胜 {b}", home_run: "全垒打",
    home_run_event: "全垒打：{a} 打枪所有对手", place: "第 {n} 名", loading: "加载中…",
    resumed_other: "该比赛属于另一个浏览器（或已不在服务器上）：已开始新比赛。",
    preset: "规则预设", switch: "开关", value: "值", tables: "计分表",
    more_rows: "多赢道数", royalty: "{row}加分", row_item: "{row}", pot_item: "{row}（第 {n} 名）",
    special_item: "报到 {name}", xi_item: "喜 {name} ×{n}", majority: "多赢道数",
    unit_paid: "付", unit_value: "大小", warn_leave: "正在理牌：确定离开？",
    played_hand: "第 {n} 局：你 {payoff}",
    multi: "多选", choose_for: "选出放入{row}的牌：", chosen: "已选 {n} 张：点一道放入",
    no_room: "{row}只能再放 {n} 张", swap_rows: "交换{a}和{b}",
    moved_on: "第 {n} 局已在另一个标签页打完：已载入第 {m} 局。",
    moved_on_done: "第 {n} 局已在另一个标签页打完，比赛已结束。",
    row_won: "胜{seat}", row_lost: "负{seat}", row_tied: "平{seat}",
    xi_named: "喜：{names}", xi_held: "这手牌有喜：{names}",
    replay: "逐步回放", replay_step: "第 {i} 步 / 共 {n} 步：{what}", step_deal: "发牌",
    step_arranged: "{seat}理牌", step_compare: "比{row}", step_result: "结果",
    step_prev: "上一步", step_next: "下一步", step_all: "全部结果",
  },
};

const ROW_ZH = { front: "头道", middle: "中道", back: "尾道", "pot 1": "头道", "pot 2": "中道", "pot 3": "尾道" };
const TYPE_ZH = { high_card: "散牌", pair: "对子", two_pair: "两对", trips: "三条", straight: "顺子", flush: "同花",
                  full_house: "葫芦", four_of_a_kind: "铁支", straight_flush: "同花顺" };
const SPECIAL_NAMES = {
  clean_dragon: ["至尊清龙", "clean dragon"], dragon: ["一条龙", "dragon"], royals: ["十二皇族", "royals"],
  three_straight_flushes: ["三同花顺", "three straight flushes"], three_fours: ["三分天下", "three fours"],
  one_colour: ["凑一色", "one colour"], all_small: ["全小", "all small"], all_big: ["全大", "all big"],
  four_trips: ["四套三条", "four trips"], six_pairs: ["六对半", "six pairs"],
  three_straights: ["三顺子", "three straights"], three_flushes: ["三同花", "three flushes"],
  black_one_red: ["全黑一张红", "all black but one red"], red_one_black: ["全红一张黑", "all red but one black"],
  five_pairs_trips: ["五对三个头", "five pairs and trips"], half_big: ["半大", "half big"],
  half_small: ["半小", "half small"], straight_flush: ["同花顺", "a straight flush"],
  four_of_a_kind: ["炸弹", "four of a kind"], trips: ["三个", "trips"],
};
const XI_ZH = { all_black: "全黑", all_red: "全红", nine_straight: "全顺", four_of_a_kind: "四张", sweep: "通锅",
                straight_flush_head: "顺清打头", three_trips: "全三" };
const INVALID_ZH = { "foul (倒水)": "倒水", "pots not increasing": "三道不是由小到大" };
const TABLE_ZH = { royalties: "每道分值", specials: "报到表", pot_payments: "每道付分", xi: "喜", hands: "牌型",
                   table: "表", between_two: "两家都报到", equal_values: "同值", value: "大小", paid: "付分" };
const SUIT_WORDS = { en: { s: "spades", h: "hearts", d: "diamonds", c: "clubs" },
                     zh: { s: "黑桃", h: "红桃", d: "方块", c: "梅花" } };
const RANK_WORDS = { T: "10", J: "jack", Q: "queen", K: "king", A: "ace" };

let lang = localStorage.getItem("splitpoker-lang")
  || ((navigator.language || "").toLowerCase().startsWith("zh") ? "zh" : "en");

function t(key, vars = {}) {
  const text = (TEXT[lang] && TEXT[lang][key]) ?? TEXT.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? vars[name] : `{${name}}`));
}
const words = (name) => String(name).replace(/_/g, " ");
const rowName = (k, names = match.row_names) => (lang === "zh" ? ROW_ZH[names[k]] || names[k] : names[k]);
const typeName = (type) => (lang === "zh" ? TYPE_ZH[type] || words(type) : words(type));
function specialName(name) {
  if (!name) return lang === "zh" ? "特殊牌型" : "a special hand";
  const [zh, en] = SPECIAL_NAMES[name] || [words(name), words(name)];
  return lang === "zh" ? zh : `${en} (${zh})`;
}
const xiName = (name) => (lang === "zh" ? XI_ZH[name] || words(name) : words(name));
const gameName = (game) => (GAME_NAMES[game] ? GAME_NAMES[game][lang] : words(game));
const presetName = (preset) => (lang === "zh" ? PRESET_ZH[preset] || words(preset) : words(preset));
// a rule switch by name (喜 switches by their 喜), and a value of it (or of a table entry `key`)
function switchName(name) {
  const xi = /^xi_(\w+)$/.exec(name);
  if (xi) return lang === "zh" ? `喜：${xiName(xi[1])}` : `喜: ${words(xi[1])}`;
  return lang === "zh" ? SWITCH_ZH[name] || words(name) : words(name);
}
function ruleValue(key, value) {
  if (lang !== "zh") return typeof value === "string" ? words(value) : String(value);
  if (typeof value === "boolean") return value ? "是" : "否";
  if (typeof value !== "string") return String(value);
  if (key === "suit_order") return value.split(">").map((suit) => SUIT_NAMES_ZH[suit] || suit).join(" > ");
  return (VALUE_ZH[key] && VALUE_ZH[key][value]) || words(value);
}
// the rules' one-line summary: the server's words, or in Chinese from the rows' sizes
function summary() {
  if (lang !== "zh") return match.rules.summary;
  const sizes = match.row_sizes;
  return `${gameName(match.game)}：${sizes.reduce((a, b) => a + b, 0)} 张牌分成 ${sizes.join("、")} 张的 ${sizes.length} 道`;
}
const seatName = (seat) => (seat === 0 ? t("you") : t("seat", { n: seat }));

// ---------------------------------------------------------------- state

let match = null;      // the state from the server
let rows = [];         // the cards placed in each row
let loose = [];        // the cards not placed yet
let active = 0;        // the row a tapped card goes to
let selected = null;   // the card selected (for a swap, or keys 1/2/3 and Backspace)
let sortBy = "rank";
let deadline = null;   // performance.now() at which the clock runs out
let ticker = null;
let busy = false;      // a submission is under way
let lastCheck = null;  // the latest validity check's answer for the rows shown
let lastReveal = null; // the reveal shown (redrawn when the language changes)
let lastHints = null;
let pick = null;       // the latest picker pull: {kind, row, index, cards}
let multi = false;     // 多选: a tap on an unplaced card chooses it, a tap on a row places those chosen
let chosen = [];       // the unplaced cards chosen with 多选
let record = null;     // the match's record, fetched for the earlier hands
const latest = {};     // the number of the latest request of each kind
let epoch = 0;         // bumped when a hand is submitted or shown: older answers are dropped
const inflight = new Set();  // the requests under way

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined) continue;
    if (key === "text") node.textContent = value;
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

// ---------------------------------------------------------------- requests

async function api(path, body) {
  const options = body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" },
                                               body: JSON.stringify(body) };
  let response;
  try { response = await fetch(path, options); } catch (failure) {
    throw Object.assign(new Error(String(failure.message || failure)), { code: "offline", params: {} });
  }
  let data;
  try { data = await response.json(); } catch (error) { data = {}; }
  if (!response.ok) {
    const error = new Error(data.error || response.statusText);
    Object.assign(error, { status: response.status, code: data.code || "http", params: data.params || {} });
    throw error;
  }
  return data;
}

class Stale extends Error {}

// A request whose answer counts only while it is the latest of its kind and the hand it was
// made for is still shown; otherwise it (or its error) is dropped as Stale.
async function request(kind, path, body) {
  const id = (latest[kind] = (latest[kind] || 0) + 1);
  const at = epoch;
  const current = () => id === latest[kind] && at === epoch;
  const sent = api(path, body);
  inflight.add(sent);
  let data;
  try { data = await sent; } catch (error) { throw current() ? error : new Stale(); } finally { inflight.delete(sent); }
  if (!current()) throw new Stale();
  return data;
}

// Every request under way has been answered: a hand is played only after them, so that none
// of them reaches the server for a hand already over.
const settled = () => Promise.allSettled([...inflight]);

function showError(error) {
  if (error instanceof Stale) return;
  if (error && error.status === 409 && match && !error.resynced) { resync(error); return; }
  const text = !error ? "" : typeof error === "string" ? error : errorText(error);
  const inTable = !$("table").hidden;
  for (const [id, shown] of [["error", inTable], ["page-error", !inTable]]) {
    $(id).hidden = !(text && shown);
    $(id).textContent = text && shown ? text : "";
  }
}

// a refusal of the server in the page's language, by its code (see words.js): hands counted
// from 1, rows and cards by the page's names; an error without a code as it is
function errorText(error) {
  const template = error.code && ERRORS[lang][error.code];
  if (!template) return String(error.message || error);
  const params = { ...error.params, message: error.message };
  for (const key of ["hand", "current"]) if (Number.isInteger(params[key])) params[key] += 1;
  if (Number.isInteger(params.row) && match) params.row = rowName(params.row);
  if (params.card) params.card = cardWords(params.card);
  if (params.invalid) params.invalid = lang === "zh" ? INVALID_ZH[params.invalid] || params.invalid : params.invalid;
  if (Array.isArray(params.fields)) params.fields = params.fields.join(", ");
  return template.replace(/\{(\w+)\}/g, (_, name) => (name in params ? params[name] : `{${name}}`));
}

function clearMessages() { showError(null); $("notice").hidden = true; }

function notice(text) { $("notice").hidden = false; $("notice").textContent = text; }

// Out of turn (409): when the match has moved on (another tab played the hand), load the
// hand in play and say so; otherwise show the error.
async function resync(error) {
  const played = match.played;
  let state = null;
  try { state = await api(`/api/matches/${match.id}`); } catch (failure) { state = null; }
  if (match.played !== played) return;  // caught up meanwhile
  if (!state || state.played === played) {
    if (error) { error.resynced = true; showError(error); }
    return;
  }
  const missed = match.hand ? match.hand.number + 1 : state.played;
  forgetRows();
  match = state;
  drawTotals();
  drawPast();
  showHand();
  notice(state.hand ? t("moved_on", { n: missed, m: state.hand.number + 1 }) : t("moved_on_done", { n: missed }));
}

// ---------------------------------------------------------------- partial arrangements, kept across reloads

const keptKey = () => `splitpoker-rows-${match.id}`;
function keepRows() {
  try { localStorage.setItem(keptKey(), JSON.stringify({ hand: match.hand.number, rows })); } catch (error) { /* full */ }
}
function forgetRows() { if (match) localStorage.removeItem(keptKey()); }

// the cards placed before a reload, when they are cards of this hand in rows not over-full
function keptRows(hand) {
  let kept = null;
  try { kept = JSON.parse(localStorage.getItem(keptKey())); } catch (error) { return null; }
  if (!kept || kept.hand !== hand.number || !Array.isArray(kept.rows) || kept.rows.length !== sizes().length) return null;
  const placed = kept.rows.flat();
  const fits = kept.rows.every((row, k) => Array.isArray(row) && row.length <= sizes()[k]);
  return fits && new Set(placed).size === placed.length && placed.every((c) => hand.cards.includes(c)) ? kept.rows : null;
}

// ---------------------------------------------------------------- cards

function rankValue(card) { return card in JOKERS ? (card === "RJ" ? -1 : -2) : RANKS.indexOf(card[0]); }
function suitValue(card) { return card in JOKERS ? -1 : 3 - SUIT_SORT.indexOf(card[1]); }
const isRed = (card) => (card in JOKERS ? card === "RJ" : "hd".includes(card[1]));
const rankText = (card) => (card[0] === "T" ? "10" : card[0]);

function sortCards(cards) {
  const bySuit = (a, b) => suitValue(b) - suitValue(a) || rankValue(a) - rankValue(b);
  const byRank = (a, b) => rankValue(a) - rankValue(b) || suitValue(a) - suitValue(b);
  return [...cards].sort(sortBy === "suit" ? bySuit : byRank);
}

function cardLabel(card) {
  if (card in JOKERS) return lang === "zh" ? JOKERS[card].zh : JOKERS[card].name.toLowerCase();
  if (lang === "zh") return `${SUIT_WORDS.zh[card[1]]}${rankText(card)}`;
  return `${RANK_WORDS[card[0]] || card[0]} of ${SUIT_WORDS.en[card[1]]}`;
}

// a card in words the way the page draws it: "10♥", "大王" / "Big Joker"
const cardWords = (card) => (card in JOKERS ? JOKERS[card][lang === "zh" ? "zh" : "name"]
  : `${rankText(card)}${SUIT_SYMBOL[card[1]] || ""}`);
// the same as a node, red suits red
function cardText(card) {
  return el("span", { class: `cardtext${isRed(card) ? " red" : ""}`, text: cardWords(card) });
}

function cardNode(card, { small = false, playable = false } = {}) {
  const joker = JOKERS[card];
  const classes = ["card", isRed(card) ? "red" : "", joker ? "joker" : "", small ? "small" : "",
                   playable && (selected === card || chosen.includes(card)) ? "selected" : ""].filter(Boolean).join(" ");
  const attrs = { class: classes, "data-card": card, title: cardLabel(card), "aria-label": cardLabel(card) };
  if (playable) {
    Object.assign(attrs, { tabindex: "0", role: "button", "aria-pressed": String(selected === card || chosen.includes(card)) });
  }
  const node = el("div", attrs);
  if (joker) node.append(el("span", { class: "rank", text: joker[lang] }), el("span", { class: "suit", text: "★" }));
  else node.append(el("span", { class: "rank", text: rankText(card) }), el("span", { class: "suit", text: SUIT_SYMBOL[card[1]] }));
  return node;
}

function cardsNode(cards) { return el("div", { class: "cards" }, cards.map((c) => cardNode(c, { small: true }))); }

// ---------------------------------------------------------------- arranging

const sizes = () => match.row_sizes;
const rowOf = (card) => rows.findIndex((row) => row.includes(card));
const isFull = () => rows.every((row, k) => row.length === sizes()[k]);

function moveCard(card, target) {
  // target: a row index, or -1 for the unplaced cards
  if (target >= 0 && rowOf(card) !== target && rows[target].length >= sizes()[target]) return false;
  loose = loose.filter((c) => c !== card);
  rows = rows.map((row) => row.filter((c) => c !== card));
  if (target >= 0) rows[target].push(card); else loose.push(card);
  return true;
}

// two cards change places: placed with placed (any rows), or placed with unplaced
function swapCards(a, b) {
  const where = (card) => { const k = rowOf(card); return k >= 0 ? rows[k] : loose; };
  const listA = where(a), listB = where(b);
  if (listA === listB) return;
  listA[listA.indexOf(a)] = b;
  listB[listB.indexOf(b)] = a;
}

function placeTapped(card) {
  const order = [active, ...sizes().map((_, k) => k).filter((k) => k !== active)];
  const target = order.find((k) => rows[k].length < sizes()[k]);
  if (target === undefined) return;
  moveCard(card, target);
  if (rows[active].length >= sizes()[active]) {
    const next = sizes().findIndex((size, k) => rows[k].length < size);
    if (next >= 0) active = next;
  }
}

function tapCard(card) {
  if (busy) return;
  clearMessages();
  pick = null;
  const placed = rowOf(card) >= 0;
  if (multi && !placed) {  // chosen, or no longer
    chosen = chosen.includes(card) ? chosen.filter((c) => c !== card) : [...chosen, card];
    selected = null;
    drawTable(card);
    say(chosen.length ? t("chosen", { n: chosen.length }) : t("to_place", { n: loose.length }));
    return;
  }
  if (selected && selected !== card && (placed || rowOf(selected) >= 0)) {
    swapCards(selected, card);
    selected = null;
  } else if (placed) {
    if (selected === card) { moveCard(card, -1); selected = null; } else selected = card;
  } else {
    selected = null;
    placeTapped(card);
  }
  arranged();
}

function keyOnCard(event, card) {
  if (event.key !== "Enter" && event.key !== " ") return;
  event.preventDefault();
  if (busy) return;
  clearMessages();
  if (selected && selected !== card && (rowOf(card) >= 0 || rowOf(selected) >= 0)) {
    swapCards(selected, card);
    selected = null;
    arranged();
    return;
  }
  selected = selected === card ? null : card;
  drawTable();
  if (selected) say(t("selected", { card: cardLabel(selected) }));
}

function putSelected(target) {
  if (!selected || busy) return;
  clearMessages();
  const card = selected;
  if (target >= 0 && rowOf(card) !== target && rows[target].length >= sizes()[target]) {
    showError(t("row_full", { row: rowName(target) }));
    return;
  }
  moveCard(card, target);
  selected = null;
  if (target >= 0) active = target;
  pick = null;
  arranged(card);
}

function setRows(newRows) {
  rows = newRows.map((row) => [...row]);
  loose = [];
  selected = null;
  pick = null;
  arranged();
}

function dropZone(node, target) {
  node.addEventListener("dragover", (event) => { event.preventDefault(); node.classList.add("over"); });
  node.addEventListener("dragleave", () => node.classList.remove("over"));
  node.addEventListener("drop", (event) => {
    event.preventDefault();
    node.classList.remove("over");
    const card = event.dataTransfer.getData("text/plain");
    if (card && !busy && moveCard(card, target)) { clearMessages(); selected = null; pick = null; arranged(); }
  });
}

function playableCard(card) {
  const node = cardNode(card, { playable: true });
  node.draggable = true;
  node.addEventListener("dragstart", (event) => event.dataTransfer.setData("text/plain", card));
  node.addEventListener("click", () => tapCard(card));
  node.addEventListener("keydown", (event) => keyOnCard(event, card));
  return node;
}

function chooseRow(k) {
  if (busy) return;
  if (chosen.length) { placeChosen(k); return; }
  if (selected) { putSelected(k); return; }
  active = k;
  drawTable();
}

function drawTable(focusCard = null) {
  const focused = focusCard || (document.activeElement && document.activeElement.dataset
    ? document.activeElement.dataset.card : null);
  const types = lastCheck ? lastCheck.types : null;
  chosen = chosen.filter((card) => loose.includes(card));
  const box = $("rows");
  box.replaceChildren();
  match.row_names.forEach((name, k) => {
    const zone = el("div", { class: "zone", id: `row-${k}`, role: "group", "aria-label": rowName(k) },
                    sortCards(rows[k]).map((c) => playableCard(c)));
    dropZone(zone, k);
    const label = el("div", { class: "label", role: "button", tabindex: "0" },
                     [el("b", { text: rowName(k) }),
                      el("span", { id: `type-${k}`, text: types ? typeName(types[k]) : `${rows[k].length}/${sizes()[k]}` })]);
    label.addEventListener("click", () => chooseRow(k));
    label.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); chooseRow(k); }
    });
    zone.addEventListener("click", (event) => { if (event.target === zone) chooseRow(k); });
    box.append(el("div", { class: `row${k === active ? " active" : ""}`, "data-size": sizes()[k] }, [label, zone]));
  });
  $("hand").replaceChildren(...sortCards(loose).map((c) => playableCard(c)));
  $("hand").setAttribute("aria-label", t("your_hand"));
  drawPickers();
  if (focused) {
    const node = document.querySelector(`#table .card[data-card="${focused}"]`);
    if (node) node.focus();
  }
}

// the rows' types from the latest check, without redrawing the cards
function drawTypes() {
  match.row_names.forEach((_, k) => {
    const node = $(`type-${k}`);
    if (node) node.textContent = lastCheck ? typeName(lastCheck.types[k]) : `${rows[k].length}/${sizes()[k]}`;
  });
}

function say(text, kind = "") {
  $("status").className = kind;
  $("status").replaceChildren(...(Array.isArray(text) ? text : [text]));
}

async function arranged(focusCard = null) {
  lastCheck = null;
  $("submit").disabled = true;
  keepRows();
  drawTable(focusCard);
  if (!isFull()) {
    say(loose.length ? t("to_place", { n: loose.length }) : "");
    return;
  }
  say(t("checking"));
  const hand = match.hand.number;
  try {
    const check = await request("check", `/api/matches/${match.id}/check`, { hand, rows });
    lastCheck = check;
    drawTypes();
    showCheck();
    if (check.valid) {  // kept by the server: played if the clock runs out, restored after a reload
      request("save", `/api/matches/${match.id}/save`, { hand, rows }).catch(() => {});
    }
  } catch (error) {
    if (!(error instanceof Stale)) say("");
    showError(error);
  }
}

function showCheck() {
  const check = lastCheck;
  if (!check) return;
  $("submit").disabled = !check.valid || busy;
  const bonuses = Object.keys(check.bonuses || {});
  if (check.valid) { say(t("valid") + (bonuses.length ? ` · ${t("xi_held", { names: xiNames(check.bonuses) })}` : ""), "good"); return; }
  const name = lang === "zh" ? INVALID_ZH[match.invalid_name] || match.invalid_name : match.invalid_name;
  say([...invalidText(name, check), ...swapButton(check)], "bad");
}

// one tap exchanges the two rows out of order, when that is what makes the arrangement valid
function swapButton(check) {
  if (!check.swap) return [];
  const [a, b] = check.swap;
  const button = el("button", { type: "button", id: "swap-rows", text: t("swap_rows", { a: rowName(a), b: rowName(b) }) });
  button.addEventListener("click", () => {
    if (busy) return;
    clearMessages();
    [rows[a], rows[b]] = [rows[b], rows[a]];
    pick = null;
    arranged();
  });
  return [" ", button];
}

// the cards that make a row's type: those of a repeated rank, else the whole row
function keyCards(row) {
  const count = {};
  for (const card of row) if (!(card in JOKERS)) count[card[0]] = (count[card[0]] || 0) + 1;
  const key = row.filter((card) => !(card in JOKERS) && count[card[0]] > 1);
  const shown = key.length ? key : row;
  return sortCards(shown).reverse().sort((a, b) => (count[b[0]] || 0) - (count[a[0]] || 0));
}

// "foul (倒水): front K♠ K♥ beats middle 2♣ 2♦": the rows that break the order
function invalidText(name, check) {
  if (!check.order) return [`${name}: ${check.reason}`];
  const [a, b] = check.order.rows;
  const part = (k) => [rowName(k), " ", ...keyCards(rows[k]).flatMap((c, i) => (i ? [" ", cardText(c)] : [cardText(c)]))];
  const relation = t(check.order.relation);
  return lang === "zh"
    ? [`${name}：`, ...part(a), ` ${relation}`, ...part(b)]
    : [`${name}: `, ...part(a), ` ${relation} `, ...part(b)];
}

// ---------------------------------------------------------------- pickers (理牌)

// the types a row can hold (none for a full row, but for one the latest pull filled: tapping
// the picker again pulls the next group); with 多选 on, a picker chooses its group instead
function drawPickers() {
  const box = $("pickers");
  if (busy || !match.hand) { box.replaceChildren(); return; }
  const back = pick && pick.row === active && !multi ? pick.cards.length : 0;
  const kinds = sizes()[active] - rows[active].length + back > 0 && match.pickers ? match.pickers[active] : [];
  const toggle = el("button", { type: "button", id: "multi", "aria-pressed": String(multi), text: t("multi") });
  toggle.addEventListener("click", () => { multi = !multi; chosen = []; pick = null; drawTable(); });
  const buttons = kinds.map((kind) => {
    const button = el("button", { type: "button", class: "picker", "data-kind": kind, text: typeName(kind) });
    button.disabled = !groupsFor(kind, active).length;
    if (button.disabled) button.title = t("none_of", { kind: typeName(kind), row: rowName(active) });
    button.addEventListener("click", () => pickGroup(kind));
    return button;
  });
  const label = el("span", { class: "pick-label", text: t(multi ? "choose_for" : "pull_into", { row: rowName(active) }) });
  box.replaceChildren(toggle, ...(kinds.length ? [label, ...buttons] : []));
}

// the groups of a kind (from the server, strongest first) that can go into a row now: of
// unplaced cards (or the group this picker pulled into it), as many as the row has room for
function groupsFor(kind, row) {
  const back = pick && pick.kind === kind && pick.row === row && !multi ? pick.cards : [];
  const pool = new Set([...loose, ...back]);
  const free = sizes()[row] - rows[row].length + back.length;
  const all = ((match.hand.groups || {})[sizes()[row]] || {})[kind] || [];
  return all.filter((group) => group.length <= free && group.every((card) => pool.has(card)));
}

const sameCards = (a, b) => a.length === b.length && a.every((card) => b.includes(card));

function pickGroup(kind) {
  if (busy) return;
  clearMessages();
  selected = null;
  const row = active;
  const options = groupsFor(kind, row);
  if (!options.length) { showError(t("none_of", { kind: typeName(kind), row: rowName(row) })); return; }
  const again = pick && pick.kind === kind && pick.row === row
    && (multi ? sameCards(chosen, pick.cards) : pick.cards.every((card) => rows[row].includes(card)));
  const index = again ? (pick.index + 1) % options.length : 0;
  const previous = again && !multi ? pick.cards : [];  // the group pulled before goes back
  pick = { kind, row, index, cards: options[index] };
  if (multi) {  // chosen, for a tap on a row to place
    chosen = [...options[index]];
    drawTable();
    say(t("chosen", { n: chosen.length }));
    return;
  }
  for (const card of previous) moveCard(card, -1);
  for (const card of options[index]) moveCard(card, row);
  arranged();
}

// the cards chosen with 多选 go into row k together, when it has room for them all
function placeChosen(k) {
  const free = sizes()[k] - rows[k].length;
  if (chosen.length > free) { showError(t("no_room", { row: rowName(k), n: free })); return; }
  for (const card of chosen) moveCard(card, k);
  chosen = [];
  pick = null;
  active = rows[k].length < sizes()[k] ? k : Math.max(0, sizes().findIndex((size, j) => rows[j].length < size));
  arranged();
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
  $("clock").textContent = lang === "zh" ? `剩余 ${left.toFixed(1)} 秒` : `time left: ${left.toFixed(1)} s`;
  $("clock").classList.toggle("low", left < 10);
  if (left <= 0) { stopClock(); timeUp(); }
}

async function timeUp() {
  busy = true;
  epoch++;
  // a complete arrangement goes with the time-out: the server plays it if it is valid
  const body = isFull() ? { hand: match.hand.number, rows } : { hand: match.hand.number };
  await settled();
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      showRevealed(await request("timeout", `/api/matches/${match.id}/timeout`, body));
      return;
    } catch (error) {
      if (error instanceof Stale) return;
      if (error.code !== "time_not_up") { showError(error); return; }
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
  }
}

// ---------------------------------------------------------------- a hand

function seatLabel(seat, attrs = {}) {
  return el("span", { class: "seat-name", title: match.agents && match.agents[seat] ? match.agents[seat] : null,
                      text: seatName(seat), ...attrs });
}

function drawInfo() {
  const hand = match.hand;
  const parts = [t("hand_of", { n: hand.number + 1, m: match.settings.hands }), " · ",
                 t("dealt_first", { seat: "" }), seatLabel(hand.first)];
  if (hand.banker !== null) parts.push(" · ", t("banker_is", { seat: "" }), seatLabel(hand.banker));
  $("info").replaceChildren(...parts);
}

function drawSpecial() {
  const special = match.hand && match.hand.special;
  const box = $("special");
  box.hidden = !special;
  if (!special) { box.replaceChildren(); return; }
  const paid = special.paid === null ? null : special.paid;
  const play = el("button", { type: "button", id: "play-special", text: t("play_special") });
  play.addEventListener("click", playSpecial);
  box.replaceChildren(el("b", { id: "special-name", text: t("special_title", { name: specialName(special.name) }) }),
                      el("span", { text: paid === null ? t("special_text_unknown") : t("special_text", { paid }) }),
                      play);
}

function showHand() {
  const hand = match.hand;
  epoch++;
  $("reveal").hidden = true;
  $("done").hidden = true;
  $("hints").replaceChildren();
  lastHints = null;
  lastReveal = null;
  if (!hand) { showDone(); return; }
  $("table").hidden = false;
  drawInfo();
  drawSpecial();
  rows = match.row_names.map(() => []);
  loose = [...hand.cards];
  const kept = keptRows(hand) || hand.saved;  // the cards placed before a reload
  if (kept) {
    rows = kept.map((row) => [...row]);
    const placed = new Set(rows.flat());
    loose = hand.cards.filter((card) => !placed.has(card));
  }
  window.scrollTo(0, 0);  // a new hand starts at the top
  active = 0;
  selected = null;
  pick = null;
  busy = false;
  drawHintButton();
  arranged();
  startClock(hand.remaining);
}

function drawHintButton() {
  const left = match.hand ? match.hand.hints_left : 0;
  $("hint").textContent = t("hint");
  $("hint").disabled = !left && !lastHints;
}

async function submit(submitRows = rows) {
  if (busy) return;
  clearMessages();
  busy = true;
  const saved = deadline;
  stopClock();
  $("submit").disabled = true;
  epoch++;  // answers to requests about this hand made before now are dropped
  try {
    await settled();
    showRevealed(await request("submit", `/api/matches/${match.id}/submit`, { hand: match.hand.number, rows: submitRows }));
  } catch (error) {
    if (error instanceof Stale) return;
    busy = false;
    showError(error);
    if (saved !== null) startClock((saved - performance.now()) / 1000);
    arranged();
  }
}

async function playSpecial() {
  if (busy) return;
  clearMessages();
  try {
    const answer = await request("auto", `/api/matches/${match.id}/auto`, { hand: match.hand.number });
    rows = answer.rows.map((row) => [...row]);
    loose = [];
    drawTable();
    await submit(rows);
  } catch (error) { showError(error); }
}

// ---------------------------------------------------------------- the reveal

const signed = (x) => `${x > 0 ? "+" : ""}${Math.round(x * 100) / 100}`;
function amountNode(x, tag = "span") { return el(tag, { class: `num ${x > 0 ? "pos" : x < 0 ? "neg" : ""}`, text: signed(x) }); }
function ordinal(n) {
  if (lang === "zh") return t("place", { n });
  return `${n}${n % 10 === 1 && n !== 11 ? "st" : n % 10 === 2 && n !== 12 ? "nd" : n % 10 === 3 && n !== 13 ? "rd" : "th"}`;
}

function showRevealed(answer) {
  stopClock();
  forgetRows();
  match = answer.state;
  localStorage.setItem(`splitpoker-played-${match.id}`, String(match.played));  // other tabs catch up
  busy = true;
  $("table").hidden = true;
  $("reveal").hidden = false;
  lastReveal = answer.reveal;
  drawReveal();
  drawTotals();
  drawPast();
  $("next").focus({ preventScroll: true });
  showHeadline();
}

// the result opens at its headline, just below the fixed bar
function showHeadline() { scrollBelowBar($("reveal-title")); }

// a node at the top of the screen, just below the fixed bar
function scrollBelowBar(node) {
  const bar = document.querySelector("header").getBoundingClientRect().height;
  window.scrollTo(0, Math.max(0, node.getBoundingClientRect().top + window.scrollY - bar - 6));
}

function drawReveal() {
  const reveal = lastReveal;
  if (!reveal) return;
  const you = reveal.seats[0].payoff;
  $("reveal-title").textContent = t("hand_result", { n: reveal.hand + 1, payoff: signed(you) })
    + (reveal.timed_out ? t("time_auto") : reveal.clock_ran_out ? t("time_played") : "");
  $("reveal-body").replaceChildren(...revealNodes(reveal));
  $("next").textContent = match.finished ? t("show_result") : t("next_hand");
}

// events of a hand worth a banner: scoops (打枪) and home runs (全垒打), from the payoff items
function highlights(reveal) {
  const scoops = reveal.items.filter((i) => i.kind === "scoop" && i.amount > 0);
  const homeRuns = [...new Set(reveal.items.filter((i) => i.kind === "home_run" && i.amount > 0).map((i) => i.seat))];
  return { scoops, homeRuns };
}

function revealNodes(reveal) {
  const { scoops, homeRuns } = highlights(reveal);
  const banner = [
    ...homeRuns.map((seat) => el("p", { class: "event home-run", text: t("home_run_event", { a: seatName(seat) }) })),
    ...scoops.filter((i) => !homeRuns.includes(i.seat)).map((i) =>  // a home run says it for its seat
      el("p", { class: "event scoop", text: t("scoop_event", { a: seatName(i.seat), b: seatName(i.against) }) })),
  ];
  const boxes = reveal.seats.map((s) => {
    const flags = [];
    if (s.seat === reveal.banker) flags.push(el("span", { class: "flag", text: t("banker") }));
    if (s.seat === reveal.first) flags.push(el("span", { class: "flag", text: t("first") }));
    if (s.fouled) flags.push(el("span", { class: "flag bad", text: t("fouled") }));
    if (s.special) flags.push(el("span", { class: "flag special", text: t("special_flag", { name: specialName(s.special_name) }) }));
    if (s.xi) flags.push(el("span", { class: "flag xi", text: t("xi_named", { names: xiNames(s.bonuses) }) }));
    if (homeRuns.includes(s.seat)) flags.push(el("span", { class: "flag home-run", text: t("home_run") }));
    else if (scoops.some((i) => i.seat === s.seat)) flags.push(el("span", { class: "flag scoop", text: t("scoop") }));
    const lines = reveal.row_names.map((_, k) => seatRowNode(reveal, s, k));
    if (s.special) lines.push(el("div", { class: "place", text: t("not_compared") }));
    const classes = ["seat-box", s.seat === 0 ? "you" : "", homeRuns.includes(s.seat) ? "home-run" : "",
                     scoops.some((i) => i.seat === s.seat) ? "scoop" : "", s.special ? "has-special" : ""];
    return el("div", { class: classes.filter(Boolean).join(" "), "data-seat": s.seat }, [
      el("div", { class: "seat-head" }, [seatLabel(s.seat), ...flags, amountNode(s.payoff, "b")]), ...lines]);
  });
  const items = reveal.seats.map((s) => itemsNode(reveal, s));
  return [...banner, el("div", { class: "seats" }, boxes), el("h3", { text: t("breakdown") }), ...items];
}

// one row of a seat as revealed: its cards in the order of what they make, its type and
// place, and how it did against the seats `against` (by default each opponent for the
// person's rows, the person for the others')
function seatRowNode(reveal, s, k, against = null) {
  const place = reveal.row_places[k][s.seat];
  const note = s.special ? typeName(s.types[k]) : `${typeName(s.types[k])} · ${ordinal(place)}`;
  const others = (against || (s.seat === 0 ? reveal.seats.map((o) => o.seat) : [0])).filter((o) => o !== s.seat);
  const marks = others.map((o) => [o, rowResult(reveal, s.seat, o, k)]).filter(([, result]) => result).map(([o, result]) => {
    const label = t(`row_${result}`, { seat: seatName(o) });
    return el("span", { class: `mark ${result}`, "data-against": o, "data-result": result, title: label, "aria-label": label,
                        text: `${MARKS[result]}${o === 0 ? t("you") : o}` });
  });
  return el("div", { class: "seat-row", "data-row": k }, [el("span", { class: "row-name", text: rowName(k, reveal.row_names) }),
    cardsNode((s.rows_by_role || s.rows)[k]),
    el("span", { class: "row-note" }, [el("span", { class: `place${!s.special && place === 1 ? " first" : ""}`, text: note }), ...marks])]);
}

const MARKS = { won: "✓", lost: "✗", tied: "=" };

// row k of seat a against seat b: "won", "lost", "tied", or null where they are not compared
// (a special hand 报到; two seats neither of which holds the bank). A pairwise payment of the
// row says it; else a fouled arrangement loses to one that is not, and places decide.
function rowResult(reveal, a, b, k) {
  const [sa, sb] = [reveal.seats[a], reveal.seats[b]];
  if (sa.special || sb.special) return null;
  if (reveal.banker !== null && reveal.banker !== undefined && a !== reveal.banker && b !== reveal.banker) return null;
  const paid = reveal.items.find((i) => i.seat === a && i.against === b && i.kind === "row" && i.row === k);
  if (paid) return paid.amount > 0 ? "won" : "lost";
  if (sa.fouled || sb.fouled) return sa.fouled === sb.fouled ? "tied" : sa.fouled ? "lost" : "won";
  const [pa, pb] = [reveal.row_places[k][a], reveal.row_places[k][b]];
  return pa < pb ? "won" : pa > pb ? "lost" : "tied";
}

// 喜 by name ("×n" for one that counts more than once)
const xiNames = (bonuses) => Object.entries(bonuses || {})
  .map(([name, n]) => (n > 1 ? `${xiName(name)} ×${n}` : xiName(name))).join(lang === "zh" ? "、" : ", ");

// a row's base point and its royalty as one amount: the row's value, as the rules' table gives it
function rowValues(items) {
  const merged = [];
  for (const i of items) {
    const row = i.kind === "royalty" && merged.find((m) => m.kind === "row" && m.row === i.row && m.against === i.against);
    if (row) row.amount += i.amount; else merged.push({ ...i });
  }
  return merged;
}

// the payoff item by item, per seat: one line per opponent (or the whole table)
function itemsNode(reveal, s) {
  const mine = rowValues(reveal.items.filter((i) => i.seat === s.seat));
  const groups = [...new Set(mine.map((i) => i.against))];
  const lines = groups.map((against) => {
    const group = mine.filter((i) => i.against === against);
    const sum = group.reduce((total, i) => total + i.amount, 0);
    const parts = group.map((i) => el("span", { class: "item" }, [`${itemName(i, reveal.row_names)} `, amountNode(i.amount)]));
    return el("tr", {}, [el("td", {}, [against === null ? t("the_table") : t("vs", { seat: "" }), against === null ? null : seatLabel(against)]),
                         el("td", {}, parts), amountNode(sum, "td")]);
  });
  const summary = el("summary", {}, [seatLabel(s.seat), ": ", amountNode(s.payoff)]);
  const details = el("details", {}, [summary, el("table", { class: "items" }, lines)]);
  if (s.seat === 0) details.open = true;
  return details;
}

function itemName(item, rowNames) {
  const row = item.row === null ? "" : rowName(item.row, rowNames);
  if (item.kind === "row") return t("row_item", { row });
  if (item.kind === "royalty") return t("royalty", { row });
  if (item.kind === "pot") return t("pot_item", { row, n: item.detail.replace(/\D+/g, "") });
  if (item.kind === "xi") {
    const [name, count] = item.detail.split(" ×");
    return t("xi_item", { name: xiName(name), n: count });
  }
  if (item.kind === "special") return t("special_item", { name: specialName(item.detail) });
  if (item.kind === "scoop") return t("scoop");
  if (item.kind === "home_run") return t("home_run");
  if (item.kind === "majority") return t("majority");
  return `${words(item.kind)}${item.detail ? ` (${words(item.detail)})` : ""}`;
}

function showDone() {
  $("table").hidden = true;
  $("reveal").hidden = true;
  $("done").hidden = false;
  const you = match.totals[0];
  const best = Math.max(...match.totals);
  $("done-text").textContent = t("done_text", { n: match.played, total: signed(you) }) + (you === best ? t("best") : "");
  $("download").href = `/api/matches/${match.id}/record`;
}

function drawTotals() {
  const head = el("tr", {}, [el("th", { text: t("hand") }), ...match.seats.map((_, s) => el("th", { class: "num" }, [seatLabel(s)]))]);
  const lines = match.history.map((h) => el("tr", {}, [el("td", { text: `${h.hand + 1}${h.timed_out ? ` ${t("timed_out")}` : ""}` }),
                                                       ...h.payoffs.map((x) => amountNode(x, "td"))]));
  const totals = el("tr", { id: "totals-row" }, [el("th", { text: t("total") }), ...match.totals.map((x) => amountNode(x, "td"))]);
  $("totals").replaceChildren(head, ...lines, totals);
}

// earlier hands: a list, each opening to its reveal (read from the match's record)
function drawPast() {
  const list = match.history.slice().reverse().map((h) => {
    const details = el("details", { class: "past-hand", "data-hand": h.hand }, [
      el("summary", {}, [t("played_hand", { n: h.hand + 1, payoff: "" }), amountNode(h.payoffs[0])]),
      el("div", { class: "past-body" })]);
    details.addEventListener("toggle", () => { if (details.open) openPast(details, h.hand); });
    return details;
  });
  $("past").hidden = !list.length;
  $("past-list").replaceChildren(...list);
}

async function openPast(details, number) {
  const body = details.querySelector(".past-body");
  if (!record || record.played.length <= number) {
    body.replaceChildren(el("p", { text: t("loading") }));
    try { record = await api(`/api/matches/${match.id}/record`); } catch (error) {
      body.replaceChildren(el("p", { class: "neg", text: errorText(error) }));
      return;
    }
  }
  body.replaceChildren(replayButton(body, record.played[number]), ...revealNodes(record.played[number]));
}

// ---------------------------------------------------------------- the rules panel

// a key of the payment tables, named for the table it is in (`parent`)
function keyName(key, rowNames, parent = "") {
  const k = rowNames.indexOf(key);
  if (k >= 0) return rowName(k, rowNames);
  const place = /^place_(\d+)$/.exec(key);
  if (place) return lang === "zh" ? `第 ${place[1]} 名` : `place ${place[1]}`;
  if (parent === "hands") return specialName(key);
  if (parent === "xi") return xiName(key);
  if ((match.type_names || []).includes(key)) return typeName(key);
  return lang === "zh" ? TABLE_ZH[key] || switchName(key) : words(key);
}

function valueNode(value, rowNames, parent = "") {
  if (value !== null && typeof value === "object") {
    return el("table", { class: "rules-table" }, Object.entries(value).map(([key, inner]) =>
      el("tr", {}, [el("th", { text: keyName(key, rowNames, parent) }), el("td", {}, [valueNode(inner, rowNames, key)])])));
  }
  return ruleValue(parent, value);
}

function drawRules() {
  const rules = match.rules;
  const rowNames = match.row_names;
  const switches = el("table", { class: "rules-table" }, Object.entries(rules.switches).map(([name, s]) =>
    el("tr", { title: lang === "zh" ? null : s.doc, "data-switch": name }, [el("th", { text: switchName(name) }),
                                el("td", { text: ruleValue(name, s.value) }),
                                lang === "zh" ? null : el("td", { class: "doc", text: s.doc })])));
  const tables = Object.entries(rules.tables).map(([name, table]) =>
    el("div", { class: "rules-part" }, [el("h3", { text: keyName(name, rowNames) }), valueNode(table, rowNames, name)]));
  $("rules-panel").replaceChildren(
    el("h2", { text: `${t("rules")}${lang === "zh" ? "：" : ": "}${gameName(match.game)} · ${t("preset")} ${presetName(rules.preset)}` }),
    el("p", { id: "rules-summary", text: summary() }), el("div", { class: "scroll" }, [switches]),
    el("h3", { text: t("tables") }), el("div", { class: "scroll rules-tables" }, tables));
}

function toggleRules() {
  const panel = $("rules-panel");
  panel.hidden = !panel.hidden;
  $("rules-button").setAttribute("aria-expanded", String(!panel.hidden));
  if (!panel.hidden && match) drawRules();
}

// ---------------------------------------------------------------- suggestions (推荐牌型)

// the suggestions, scrolled into view; asked again, the same ones (the server's answer to a
// repeat spends nothing)
async function hint() {
  if (busy) return;
  clearMessages();
  const box = $("hints");
  if (lastHints) { drawHints(); showHints(); return; }
  box.replaceChildren(el("p", { text: t("thinking") }));
  showHints();
  try {
    const answer = await request("hint", `/api/matches/${match.id}/hint`, { hand: match.hand.number });
    match.hand.hints_left = answer.hints_left;
    lastHints = answer;
    drawHintButton();
    drawHints();
    showHints();
  } catch (error) {
    if (error instanceof Stale) return;
    box.replaceChildren();
    showError(error);
  }
}

function drawHints() {
  const answer = lastHints;
  if (!answer) return;
  const list = answer.splits.map((split) => {
    const use = el("button", { type: "button", class: "use", text: t("use") });
    use.addEventListener("click", () => { clearMessages(); setRows(split.rows); });
    const lines = split.rows.map((row, k) => el("div", { class: "seat-row" }, [
      el("span", { class: "row-name", text: rowName(k) }), cardsNode(row),
      el("span", { class: "row-note" }, [el("span", { class: "place", text: typeName(split.types[k]) })])]));
    return el("li", { class: "suggestion" }, [el("div", { class: "seat-head" }, [
      el("b", { text: t("ev", { ev: signed(Number(split.ev.toFixed(2))) }) }), use]), ...lines]);
  });
  $("hints").replaceChildren(el("p", { text: t("suggestions", { samples: answer.samples }) }), el("ol", {}, list));
}

// the suggestions at the top of the screen, below the fixed bar and above the controls
function showHints() { scrollBelowBar($("hints")); }

// ---------------------------------------------------------------- matches

async function auto() {
  if (busy) return;
  clearMessages();
  try { setRows((await request("auto", `/api/matches/${match.id}/auto`, { hand: match.hand.number })).rows); }
  catch (error) { showError(error); }
}

function remember(id) {
  localStorage.setItem("splitpoker-match", id);  // a reload resumes it (its secret is a cookie)
  history.replaceState(null, "", `${location.pathname}#match=${id}`);
}

async function newMatch() {
  clearMessages();
  try {
    const created = await api("/api/matches", {});
    remember(created.id);
    await openMatch(created.id);
  } catch (error) { showError(error); }
}

async function openMatch(id) {
  match = await api(`/api/matches/${id}`);
  document.documentElement.style.setProperty("--row-cards", Math.max(...match.row_sizes));  // the widest row
  record = null;
  remember(id);
  drawTitle();
  drawTotals();
  drawPast();
  if (!$("rules-panel").hidden) drawRules();
  showHand();
}

function drawTitle() {
  $("title").textContent = `${gameName(match.game)} · ${presetName(match.settings.preset)} · ${match.seats.length}`
    + (lang === "zh" ? " 人" : " players");
}

async function resume() {
  const fromUrl = /^#match=([\w-]+)$/.exec(location.hash);
  const id = fromUrl ? fromUrl[1] : localStorage.getItem("splitpoker-match");
  if (id) {
    try { await openMatch(id); return; } catch (error) {
      await newMatch();  // gone, or not this browser's: a new one
      if (fromUrl) { $("notice").hidden = false; $("notice").textContent = t("resumed_other"); }
      return;
    }
  }
  newMatch();
}

async function nextHand() {
  clearMessages();
  try {
    match = await api(`/api/matches/${match.id}`);
    showHand();
  } catch (error) { showError(error); }
}

// ---------------------------------------------------------------- language, keys, start

function applyLanguage() {
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  $("lang").textContent = t("lang_button");
  $("lang").setAttribute("lang", lang === "zh" ? "en" : "zh");
  if (!match) return;
  drawTitle();
  drawTotals();
  drawPast();
  if (!$("rules-panel").hidden) drawRules();
  if (!$("table").hidden) { drawInfo(); drawSpecial(); drawHintButton(); drawTable(); drawHints();
    if (lastCheck) showCheck(); else if (!isFull()) say(loose.length ? t("to_place", { n: loose.length }) : ""); }
  if (!$("reveal").hidden) drawReveal();
  if (!$("done").hidden) showDone();
}

function switchLanguage() {
  lang = lang === "zh" ? "en" : "zh";
  localStorage.setItem("splitpoker-lang", lang);
  applyLanguage();
}

document.addEventListener("keydown", (event) => {
  if (!match || $("table").hidden || busy || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement) return;
  const k = Number(event.key) - 1;
  if (Number.isInteger(k) && k >= 0 && k < match.row_names.length) {
    if (selected) { event.preventDefault(); putSelected(k); }
  } else if ((event.key === "Backspace" || event.key === "Delete") && selected) {
    event.preventDefault();
    putSelected(-1);
  } else if (event.key === "Escape" && selected) {
    selected = null;
    drawTable();
  }
});

// another tab played a hand of this match: a tab arranging the hand catches up by itself
window.addEventListener("storage", (event) => {
  if (match && event.key === `splitpoker-played-${match.id}` && Number(event.newValue) > match.played
      && !$("table").hidden && !busy) resync(null);
});

window.addEventListener("beforeunload", (event) => {
  if (match && match.hand && !$("table").hidden && !busy) {
    event.preventDefault();
    event.returnValue = t("warn_leave");
  }
});

$("sort-rank").addEventListener("click", () => { sortBy = "rank"; drawTable(); });
$("sort-suit").addEventListener("click", () => { sortBy = "suit"; drawTable(); });
$("clear").addEventListener("click", () => {
  if (busy) return;
  clearMessages();
  loose = [...match.hand.cards]; rows = rows.map(() => []); active = 0; selected = null; pick = null; arranged();
});
$("auto").addEventListener("click", auto);
$("hint").addEventListener("click", hint);
$("submit").addEventListener("click", () => submit());
$("next").addEventListener("click", nextHand);
$("new-match").addEventListener("click", newMatch);
$("lang").addEventListener("click", switchLanguage);
$("rules-button").addEventListener("click", toggleRules);
dropZone($("hand"), -1);
applyLanguage();
resume();
