// The page's words for what the server names: the games, the presets, the rule switches and
// their values, and every refusal of the server by its code, in both languages (play.js
// holds the page's own sentences). A name missing here is shown as the server spells it.
"use strict";

const GAME_NAMES = { thirteen: { zh: "十三张", en: "Thirteen" }, biji: { zh: "比鸡", en: "Biji" } };

const PRESET_ZH = {
  classic: "经典", shisanshui: "十三水", banker: "坐庄", western: "西式", baomahui: "宝马会",
  baodao: "报到十三张", mianbai: "免摆", baibian: "百变", shaoxing: "绍兴", bidaxiao: "比大小",
  banker_top: "坐庄（只比最大牌）", shisanshui_strict: "十三水（严格）", "no-jokers": "无王",
};

const SWITCH_ZH = {
  wheel: "A2345 顺子", flush_compare: "同花比较", suit_tiebreak: "同点比花色", suit_order: "花色大小",
  scoring: "计分方式", banker_seat: "庄家座位", royalties: "加分", scoop: "打枪", home_run: "全垒打",
  specials: "报到（特殊牌型）", counted_rows: "比哪几道", tie_winner: "平道归属", special_pays: "报到统一付分",
  rank_compare: "同牌型比较", jokers: "王", pair_tiebreak: "对子同大时比较",
};

// the tables of special hands (and of royalties) by name: a value of `specials`, `royalties`
// and of the tables' `table` entry
const TABLE_NAMES_ZH = {
  classic: "经典", shisanshui: "十三水", banker: "坐庄", off: "关闭", none: "无", baodao: "报到十三张",
  mianbai: "免摆", baibian: "百变", shaoxing: "绍兴", suit_dragon: "同花龙", classic_big_small: "经典（含全大全小）",
  shisanshui_strict: "十三水（严格）", baibian_complete: "百变（完整）", shaoxing_distinct: "绍兴（分大小）",
};

// a rule value in Chinese, by the switch (or table entry) it is the value of
const VALUE_ZH = {
  wheel: { second: "第二大（仅次于 10JQKA）", lowest: "最小", ace_equal: "与 10JQKA 同大", none: "不算顺子" },
  flush_compare: { rank_first: "先比点数", suit_first: "先比花色", top_card: "比最大的牌（点数再花色）",
                   all_ranks: "逐张比点数" },
  scoring: { pairwise: "两两比牌", banker: "庄闲制（各家对庄家）", two_four: "每道一分，多赢再加一分",
             majority: "赢两道以上得一分" },
  scoop: { none: "无", double: "翻倍" },
  counted_rows: { all: "三道都比", back: "只比尾道" },
  tie_winner: { none: "无（平道不计）", banker: "归庄家" },
  rank_compare: { all: "逐张比点数", top: "只比最大的牌" },
  jokers: { rank0: "两张王（点数最小）", none: "无王" },
  pair_tiebreak: { kicker_suit: "比单张的花色", pair_suit: "比对子中最大的花色" },
  between_two: { higher_wins: "大者赢", banker_pays: "庄家付" },
  equal_values: { tie: "平局", stronger_cards: "比牌大小", precedence: "按先后顺序" },
  specials: TABLE_NAMES_ZH, royalties: TABLE_NAMES_ZH, table: TABLE_NAMES_ZH,
};
const SUIT_NAMES_ZH = { spades: "黑桃", hearts: "红桃", diamonds: "方块", clubs: "梅花" };

// every refusal of the server, by its code: {name} is one of its params (hands counted from 1,
// rows by name, cards as the page shows them), {message} the server's own English words
const ERRORS = {
  en: {
    time_up: "The time is up: an arrangement saved now is not played.",
    invalid_kept: "{invalid}: only a valid arrangement is kept.",
    invalid_submit: "{invalid}: rearrange before you submit.",
    no_time_limit: "This match has no time limit.",
    clock_not_started: "The clock of this hand has not started yet.",
    time_not_up: "The time is not up: {remaining} s left.",
    no_more_hints: "No more suggestions for hand {hand}: {limit} a hand.",
    match_over: "The match is over: all {hands} hands are played.",
    not_an_object: "The request is not an object with {fields}.",
    unknown_field: "The request has an unknown field.",
    missing_field: "The request lacks a field.",
    not_a_hand: "The request names no hand.",
    stale_hand: "Hand {hand} is not the hand in play (hand {current}).",
    rows_not_a_list: "The rows must be a list of {count} rows.",
    row_not_cards: "The {row} row must be a list of cards.",
    row_size: "The {row} row has {cards} cards; it needs {size}.",
    bad_card: "A card of the rows cannot be read.",
    not_one_card: "An entry of the rows is not one card.",
    card_not_in_hand: "The rows are not your hand: {card} is not in your hand (or is given twice).",
    card_missing: "The rows are not your hand: {card} of your hand is missing.",
    server_full: "The server holds {matches} matches in play: try again when one has been idle for a while.",
    unknown_match: "This match is not on the server.",
    not_your_match: "This match belongs to the browser that created it.",
    body_too_large: "The request is larger than {bytes} bytes.",
    body_too_deep: "The request is nested too deeply.",
    not_json: "The request could not be read.",
    host_refused: "The server does not answer for this host name.",
    cross_origin: "A request from another site was refused.",
    token: "This server needs its token: open the address it printed.",
    no_fields: "A new match takes no settings: the server's apply.",
    unknown_action: "The server knows no such action.",
    internal: "{message}",
    no_such_page: "No such page.",
    method_not_allowed: "The server does not take that kind of request here.",
    http: "{message}",
    offline: "The server cannot be reached.",
  },
  zh: {
    time_up: "时间已到：现在保存的摆法不会被使用。",
    invalid_kept: "{invalid}：只保存有效的摆法。",
    invalid_submit: "{invalid}：请重新摆牌后再出牌。",
    no_time_limit: "本场比赛不限时。",
    clock_not_started: "本局还没有开始计时。",
    time_not_up: "时间未到：还剩 {remaining} 秒。",
    no_more_hints: "第 {hand} 局的推荐已用完（每局 {limit} 次）。",
    match_over: "比赛已结束：{hands} 局都已打完。",
    not_an_object: "请求的格式不对。",
    unknown_field: "请求中有未知的字段。",
    missing_field: "请求中缺少字段。",
    not_a_hand: "请求没有指明是哪一局。",
    stale_hand: "第 {hand} 局不是正在进行的牌局（现在是第 {current} 局）。",
    rows_not_a_list: "牌道必须是 {count} 道。",
    row_not_cards: "{row}必须是一组牌。",
    row_size: "{row}有 {cards} 张牌，需要 {size} 张。",
    bad_card: "牌道中有一张牌无法识别。",
    not_one_card: "牌道中有一项不是一张牌。",
    card_not_in_hand: "牌道与手牌不符：{card} 不在你的手牌中（或出现了两次）。",
    card_missing: "牌道与手牌不符：缺少你手牌中的 {card}。",
    server_full: "服务器上正在进行的比赛已满（{matches} 场）：请等有比赛闲置一段时间后再试。",
    unknown_match: "服务器上没有这场比赛。",
    not_your_match: "这场比赛属于创建它的浏览器。",
    body_too_large: "请求超过 {bytes} 字节。",
    body_too_deep: "请求嵌套过深。",
    not_json: "无法读取请求。",
    host_refused: "服务器不接受这个主机名的请求。",
    cross_origin: "已拒绝来自其他网站的请求。",
    token: "服务器需要令牌：请打开服务器打印的网址。",
    no_fields: "新比赛不接受设置：使用服务器的设置。",
    unknown_action: "服务器没有这个操作。",
    internal: "服务器内部出错。",
    no_such_page: "没有这个页面。",
    method_not_allowed: "服务器在这里不接受这种请求。",
    http: "请求被拒绝。",
    offline: "无法连接服务器。",
  },
};
