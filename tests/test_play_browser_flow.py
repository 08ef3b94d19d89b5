"""Browser play in Chromium: the flow of a hand on a phone (every control and the result's
headline in view without scrolling), several tabs and reloads of one match, results read
by what each row makes, 喜 named before and after a hand, and the replay of earlier hands.
Marked ``browser``, driven through ``tests/browser_support.py``; screenshots go to
``artifacts/`` at 390×844 and 1280×800."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_support import (
    DESKTOP,
    PHONE,
    LiveServer,
    cards_in,
    click_card,
    screenshot,
    severe,
    status,
    viewport,
    wait_for,
    wait_valid,
)

pytestmark = pytest.mark.browser


#: the elements of `selector` that are not wholly inside the viewport, or are covered there
#: (the point near the middle of their top edge shows another element, such as a fixed bar)
OUT_OF_VIEW = """
const out = [];
for (const node of document.querySelectorAll(arguments[0])) {
  const r = node.getBoundingClientRect();
  if (!r.width || !r.height) continue;
  const inside = r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
  const hit = inside && document.elementFromPoint(r.left + r.width / 2, r.top + Math.min(r.height / 2, 8));
  if (!inside || !(hit === node || node.contains(hit))) out.push(node.id || node.dataset.card || node.textContent);
}
return out;"""


def out_of_view(driver: Any, selector: str) -> list[str]:
    return list(driver.execute_script(OUT_OF_VIEW, selector))


def shown(driver: Any, selector: str) -> bool:
    return bool(driver.find_elements("css selector", selector)) and not out_of_view(driver, selector)


def open_page(driver: Any, url: str, language: str = "en") -> None:
    """The page with a new match (the server's first unless one was opened before), in ``language``."""
    driver.get(url)
    wait_for(driver, lambda d: d.execute_script("return !!(match && match.hand)")
             and len(d.find_elements("css selector", "#hand .card")) > 0)
    if driver.execute_script("return lang") != language:
        driver.find_element("id", "lang").click()


# ---------------------------------------------------------------------------- the phone flow

def test_a_whole_hand_on_a_phone_needs_no_scrolling(browser: Any) -> None:
    with LiveServer(game="thirteen", players=4, hands=3, seed=11, time_limit=120, against=("greedy",)) as live:
        for (width, height), tag in ((PHONE, "phone"), (DESKTOP, "desktop")):
            viewport(browser, width, height)
            open_page(browser, live.url, "zh")
            for number in range(2):
                # the deal: the clock, the rows, the cards and every control in view, at the top
                wait_for(browser, lambda d, n=number: d.execute_script("return match.hand.number") == n
                         and d.find_element("id", "table").is_displayed()
                         and len(d.find_elements("css selector", "#hand .card")) == 13)
                assert browser.execute_script("return window.scrollY") == 0, tag
                for selector in ("#clock", "#rows .label", "#hand .card", "#controls button", "#lang", "#rules-button"):
                    assert not out_of_view(browser, selector), (tag, number, selector, out_of_view(browser, selector))
                # arrange: a picker pulls cards into the highlighted row, and stays in reach
                pickers = browser.find_elements("css selector", "#pickers button")
                if pickers:
                    assert not out_of_view(browser, "#pickers button"), (tag, out_of_view(browser, "#pickers button"))
                    pickers[0].click()
                browser.find_element("id", "auto").click()
                wait_valid(browser)
                for selector in ("#clock", "#rows .card", "#submit"):
                    assert not out_of_view(browser, selector), (tag, number, selector, out_of_view(browser, selector))
                screenshot(browser, f"play-flow-{tag}-arranged-{number + 1}.png")
                # the clock stays in the fixed bar however far the page is scrolled
                browser.execute_script("window.scrollTo(0, document.body.scrollHeight)")
                assert not out_of_view(browser, "#clock"), tag
                browser.find_element("id", "submit").click()
                wait_for(browser, lambda d: d.find_element("id", "reveal").is_displayed())
                # the result opens at its headline, below the fixed bar; 下一局 in reach
                wait_for(browser, lambda d: shown(d, "#reveal-title") and shown(d, "#next"))
                assert browser.find_element("id", "reveal-title").text.startswith(f"第 {number + 1} 局：你")
                assert browser.find_element("css selector", "#reveal-title").rect["y"] - \
                    browser.execute_script("return window.scrollY") < height / 3
                screenshot(browser, f"play-flow-{tag}-result-{number + 1}.png")
                browser.execute_script("window.scrollTo(0, document.body.scrollHeight / 2)")
                assert shown(browser, "#next"), tag  # reading further down, 下一局 stays in reach
                browser.find_element("id", "next").click()
            wait_for(browser, lambda d: d.find_element("id", "table").is_displayed()
                     and len(d.find_elements("css selector", "#hand .card")) == 13)
            assert browser.execute_script("return [match.hand.number, window.scrollY]") == [2, 0]
            browser.execute_script("localStorage.removeItem('splitpoker-match'); history.replaceState(null, '', '/')")
        assert severe(browser) == []


# ---------------------------------------------------------------------------- tabs and reloads

def test_a_tab_that_falls_behind_loads_the_hand_in_play(browser: Any) -> None:
    with LiveServer(game="thirteen", players=3, hands=3, seed=6, against=("greedy",)) as live:
        viewport(browser, *PHONE)
        open_page(browser, live.url, "zh")
        match_id = browser.execute_script("return match.id")
        first = browser.current_window_handle
        browser.switch_to.new_window("tab")
        browser.get(f"{live.url}#match={match_id}")
        wait_for(browser, lambda d: d.execute_script("return !!(match && match.hand)"))
        second = browser.current_window_handle
        browser.find_element("id", "auto").click()
        wait_valid(browser)
        # the hand is played elsewhere (no page sees it): this tab's 出牌 finds the match moved on
        rows = live.api(f"api/matches/{match_id}/auto", {"hand": 0})["rows"]
        live.api(f"api/matches/{match_id}/submit", {"hand": 0, "rows": rows})
        browser.find_element("id", "submit").click()
        wait_for(browser, lambda d: d.find_element("id", "notice").is_displayed())
        assert browser.find_element("id", "notice").text == "第 1 局已在另一个标签页打完：已载入第 2 局。"
        wait_for(browser, lambda d: d.execute_script("return match.hand.number") == 1
                 and len(d.find_elements("css selector", "#hand .card")) == 13 and "检查中" not in status(d))
        body = browser.find_element("tag name", "body").text
        assert "not the hand in play" not in body and not browser.find_element("id", "error").is_displayed()
        screenshot(browser, "play-flow-phone-caught-up.png")
        # a hand played in another tab of the page: this one catches up by itself
        browser.switch_to.window(first)
        browser.refresh()
        wait_for(browser, lambda d: d.execute_script("return match && match.hand && match.hand.number") == 1)
        browser.find_element("id", "auto").click()
        wait_valid(browser)
        browser.find_element("id", "submit").click()
        wait_for(browser, lambda d: d.find_element("id", "reveal").is_displayed())
        browser.switch_to.window(second)
        wait_for(browser, lambda d: d.execute_script("return match.hand.number") == 2)
        assert browser.find_element("id", "notice").text == "第 2 局已在另一个标签页打完：已载入第 3 局。"
        wait_for(browser, lambda d: "检查中" not in status(d))
        assert severe(browser, allowed=("409", "beforeunload")) == []


def test_cards_placed_so_far_survive_a_reload(browser: Any) -> None:
    with LiveServer(game="biji", players=3, hands=2, seed=8, against=("random",)) as live:
        open_page(browser, live.url)
        match_id = browser.execute_script("return match.id")
        hand = browser.execute_script("return match.hand.cards")
        browser.find_element("css selector", "#rows .row:nth-child(3) .label").click()
        for card in hand[:2]:
            click_card(browser, card)
        browser.find_element("css selector", "#rows .row:nth-child(1) .label").click()
        click_card(browser, hand[2])
        placed = [cards_in(browser, f"#row-{k}") for k in range(3)]
        assert sum(map(len, placed)) == 3
        browser.refresh()
        wait_for(browser, lambda d: len(d.find_elements("css selector", "#hand .card")) == 6)
        assert [sorted(cards_in(browser, f"#row-{k}")) for k in range(3)] == [sorted(r) for r in placed]
        assert sorted(cards_in(browser, "#hand")) == sorted(hand[3:])
        # the hand played: what was kept for it is gone, and the next hand starts empty
        browser.find_element("id", "auto").click()
        wait_valid(browser)
        browser.find_element("id", "submit").click()
        wait_for(browser, lambda d: d.find_element("id", "reveal").is_displayed())
        kept = browser.execute_script("return localStorage.getItem(arguments[0])", f"splitpoker-rows-{match_id}")
        assert kept is None
        browser.find_element("id", "next").click()
        wait_for(browser, lambda d: d.execute_script("return match.hand.number") == 1)
        browser.refresh()
        wait_for(browser, lambda d: len(d.find_elements("css selector", "#hand .card")) == 9)
        assert severe(browser) == []


# ---------------------------------------------------------------------------- reading the result

#: seat 0's automatic arrangement of the first hand holds two full houses (thirteen, classic,
#: four players, greedy opponents): a middle full house is worth 2 (the royalty table)
FULL_HOUSE_SEED = 3
#: seat 0's automatic arrangement of the first hand holds four kings, a 喜 (biji, classic,
#: four players)
XI_SEED = 292


def test_rows_read_by_role_with_even_labels_marks_and_row_values(browser: Any) -> None:
    from splitpoker.envs.cards import format_card, parse_cards
    from splitpoker.envs.game import Game

    with LiveServer(game="thirteen", players=4, hands=2, seed=FULL_HOUSE_SEED, against=("greedy",)) as live:
        viewport(browser, *PHONE)
        open_page(browser, live.url)
        match_id = browser.execute_script("return match.id")
        browser.find_element("id", "auto").click()
        wait_valid(browser)
        browser.find_element("id", "submit").click()
        wait_for(browser, lambda d: d.find_element("id", "reveal").is_displayed())
        played = live.api(f"api/matches/{match_id}/record")["played"][0]
        mine = played["seats"][0]
        assert mine["types"][1] == "full_house"
        for (width, height), tag in ((PHONE, "phone"), (DESKTOP, "desktop")):
            viewport(browser, width, height)
            for seat in played["seats"]:
                box = f'#reveal-body .seat-box[data-seat="{seat["seat"]}"]'
                for k, row in enumerate(seat["rows"]):  # KKK22, not 22KKK
                    by_role = [format_card(c) for c in Game.role_order(parse_cards(" ".join(row)))]
                    assert cards_in(browser, f'{box} .seat-row[data-row="{k}"]') == by_role
                # the row names one column, each on one line; the notes start at one edge
                geometry = browser.execute_script("""return [...document.querySelectorAll(arguments[0] + " .seat-row")]
                    .map((r) => [r.querySelector(".row-name").getBoundingClientRect().height,
                                 r.querySelector(".row-note").getBoundingClientRect().left])""", box)
                assert len({round(left) for _, left in geometry}) == 1, (tag, geometry)
                assert max(h for h, _ in geometry) < 24, (tag, geometry)
            screenshot(browser, f"play-flow-{tag}-rows-by-role.png")
        middle = cards_in(browser, '#reveal-body .seat-box[data-seat="0"] .seat-row[data-row="1"]')
        assert middle[0][0] == middle[1][0] == middle[2][0] and middle[3][0] == middle[4][0]
        # every row of yours marked against each opponent, as the payments say
        for k in range(3):
            for against in (1, 2, 3):
                mark = browser.find_element("css selector", f'.seat-box[data-seat="0"] .seat-row[data-row="{k}"] '
                                            f'.mark[data-against="{against}"]')
                paid = sum(i["amount"] for i in played["items"]
                           if i["seat"] == 0 and i["kind"] == "row" and i["row"] == k and i["against"] == against)
                result = "won" if paid > 0 else "lost" if paid < 0 else "tied"
                assert mark.get_attribute("data-result") == result, (k, against)
        # the breakdown reads the row values of the rules' table: the middle full house is +2
        items = browser.find_element("css selector", "#reveal-body details[open] .items").text
        assert "royalty" not in items
        won = [i for i in played["items"] if i["seat"] == 0 and i["row"] == 1 and i["kind"] in ("row", "royalty")]
        against = next(i["against"] for i in won if i["kind"] == "royalty" and i["amount"] > 0)
        value = sum(i["amount"] for i in won if i["against"] == against)
        table = live.api(f"api/matches/{match_id}")["rules"]["tables"]["royalties"]
        assert value == 2 == table["middle"]["full_house"]
        line = browser.find_elements("css selector", "#reveal-body details[open] .items tr")[against - 1].text
        assert "middle +2" in line, line
        browser.find_element("id", "rules-button").click()
        assert "full house 2" in browser.find_element("id", "rules-panel").text.replace("\n", " ")
        assert severe(browser) == []


def test_xi_is_named_before_and_after_the_hand(browser: Any) -> None:
    with LiveServer(game="biji", players=4, hands=1, seed=XI_SEED, against=("random",)) as live:
        viewport(browser, *PHONE)
        open_page(browser, live.url)
        browser.find_element("id", "auto").click()
        wait_valid(browser)
        assert "this arrangement makes 喜: four of a kind" in status(browser), status(browser)
        browser.find_element("id", "lang").click()
        wait_for(browser, lambda d: "这手牌有喜：四张" in status(d))
        screenshot(browser, "play-flow-phone-xi-announced.png")
        browser.find_element("id", "submit").click()
        wait_for(browser, lambda d: d.find_element("id", "reveal").is_displayed())
        flag = browser.find_element("css selector", '.seat-box[data-seat="0"] .flag.xi').text
        assert flag == "喜：四张"
        assert "×" not in flag
        screenshot(browser, "play-flow-phone-xi-result.png")
        assert severe(browser) == []


# ---------------------------------------------------------------------------- the replay

def test_an_earlier_hand_replays_step_by_step(browser: Any) -> None:
    with LiveServer(game="thirteen", players=3, hands=2, seed=4, against=("greedy",)) as live:
        for (width, height), tag in ((PHONE, "phone"), (DESKTOP, "desktop")):
            viewport(browser, width, height)
            open_page(browser, live.url, "zh" if tag == "phone" else "en")
            match_id = browser.execute_script("return match.id")
            browser.find_element("id", "auto").click()
            wait_valid(browser)
            browser.find_element("id", "submit").click()
            wait_for(browser, lambda d: d.find_element("id", "reveal").is_displayed())
            browser.find_element("id", "next").click()
            wait_for(browser, lambda d: d.execute_script("return match.hand.number") == 1)
            played = live.api(f"api/matches/{match_id}/record")["played"][0]
            past = browser.find_element("css selector", '#past-list details[data-hand="0"]')
            browser.execute_script("arguments[0].open = true; arguments[0].scrollIntoView()", past)
            wait_for(browser, lambda d: d.find_elements("css selector", "#past-list .replay-start"))
            browser.find_element("css selector", "#past-list .replay-start").click()
            steps = []
            while True:
                step = browser.find_element("css selector", "#past-list .replay")
                steps.append(step.find_element("css selector", ".replay-step").text)
                boxes = step.find_elements("css selector", ".seat-box")
                number = int(step.get_attribute("data-step"))
                if number == 0:  # the deal: every seat's 13 cards
                    assert [len(b.find_elements("css selector", ".dealt .card")) for b in boxes] == [13] * 3
                elif number <= 3:  # seats arrange in the order of the deal
                    seat = (played["first"] + number - 1) % 3
                    arranged = step.find_element("css selector", f'.seat-box[data-seat="{seat}"]')
                    assert len(arranged.find_elements("css selector", ".seat-row")) == 3
                elif number <= 6:  # each row compared: its cards, place and marks, what it paid
                    k = number - 4
                    compared = [s for s in played["seats"] if not s["special"]]
                    assert len(step.find_elements("css selector", f'.seat-row[data-row="{k}"]')) == len(compared)
                    assert step.find_elements("css selector", ".mark")
                buttons = step.find_elements("css selector", ".replay-next")
                if not buttons[0].is_enabled():
                    break
                if number == 4:
                    screenshot(browser, f"play-flow-{tag}-replay.png")
                buttons[0].click()
                wait_for(browser, lambda d, n=number: d.find_element("css selector", "#past-list .replay")
                         .get_attribute("data-step") == str(n + 1))
            assert len(steps) == 1 + 3 + 3 + 1
            final = browser.find_element("css selector", "#past-list .replay")
            assert len(final.find_elements("css selector", ".seat-box")) == 3
            if tag == "phone":
                assert steps[0] == "第 1 步 / 共 8 步：发牌" and steps[-1] == "第 8 步 / 共 8 步：结果"
            else:
                assert steps[0] == "Step 1 of 8: the deal" and "the front rows compared" in steps[4]
            final.find_element("css selector", ".replay-prev").click()
            wait_for(browser, lambda d: d.find_element("css selector", "#past-list .replay").get_attribute("data-step")
                     == "6")
            browser.execute_script("localStorage.removeItem('splitpoker-match'); history.replaceState(null, '', '/')")
        assert severe(browser) == []

