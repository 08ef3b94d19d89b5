// Earlier hands of the match replayed step by step: the deal, each seat's rows (in the
// order of the deal), each row compared, the result. Read from the match's record, as the
// reveal is; drawn with the helpers of play.js (loaded after this file, called later).
"use strict";

// the button that starts the replay of `reveal` (a hand of the record) inside `body`
function replayButton(body, reveal) {
  const button = el("button", { type: "button", class: "replay-start", text: t("replay") });
  button.addEventListener("click", () => showStep(body, reveal, 0));
  return button;
}

function replaySteps(reveal) {
  const n = reveal.seats.length;
  const order = reveal.seats.map((_, i) => (reveal.first + i) % n);
  return [
    { what: () => t("step_deal"), nodes: () => stepSeats(reveal, (s) => dealtNode(s)) },
    ...order.map((seat, i) => ({
      what: () => t("step_arranged", { seat: seatName(seat) }),
      nodes: () => stepSeats(reveal, (s) => (order.slice(0, i + 1).includes(s.seat) ? arrangedNode(reveal, s) : dealtNode(s))),
    })),
    ...reveal.row_names.map((_, k) => ({
      what: () => t("step_compare", { row: rowName(k, reveal.row_names) }),
      nodes: () => stepSeats(reveal, (s) => comparedNode(reveal, s, k)),
    })),
    { what: () => t("step_result"), nodes: () => revealNodes(reveal) },
  ];
}

// one box a seat, side by side where they fit (as the reveal's)
function stepSeats(reveal, inside) {
  return [el("div", { class: "seats" }, reveal.seats.map((s) => el("div", {
    class: `seat-box${s.seat === 0 ? " you" : ""}`, "data-seat": s.seat,
  }, [el("div", { class: "seat-head" }, [seatLabel(s.seat), s.seat === reveal.first
    ? el("span", { class: "flag", text: t("first") }) : null]), inside(s)])))];
}

function dealtNode(s) {
  return el("div", { class: "dealt" }, [cardsNode(sortCards(s.hand.split(" ")))]);
}

function arrangedNode(reveal, s) {
  return el("div", {}, reveal.row_names.map((_, k) => el("div", { class: "seat-row" }, [
    el("span", { class: "row-name", text: rowName(k, reveal.row_names) }), cardsNode((s.rows_by_role || s.rows)[k]),
    el("span", { class: "place", text: typeName(s.types[k]) })])));
}

// row k of a seat against the others, and what the row paid it
function comparedNode(reveal, s, k) {
  if (s.special) return el("div", { class: "place", text: t("not_compared") });
  const paid = rowValues(reveal.items.filter((i) => i.seat === s.seat && i.row === k))
    .reduce((total, i) => total + i.amount, 0);
  const everyone = reveal.seats.map((o) => o.seat);
  return el("div", {}, [seatRowNode(reveal, s, k, everyone), el("div", { class: "row-paid" }, [amountNode(paid)])]);
}

function showStep(body, reveal, i) {
  const steps = replaySteps(reveal);
  const step = steps[i];
  const go = (to, key, name) => {
    const button = el("button", { type: "button", class: name, text: t(key) });
    button.disabled = to < 0 || to >= steps.length || to === i;
    button.addEventListener("click", () => showStep(body, reveal, to));
    return button;
  };
  const nav = el("div", { class: "replay-nav" }, [go(i - 1, "step_prev", "replay-prev"), go(i + 1, "step_next", "replay-next"),
                                                   go(steps.length - 1, "step_all", "replay-all")]);
  body.replaceChildren(el("div", { class: "replay", "data-step": i }, [
    el("p", { class: "replay-step", text: t("replay_step", { i: i + 1, n: steps.length, what: step.what() }) }), nav,
    ...step.nodes()]));
}
