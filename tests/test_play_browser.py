"""Browser play in a real browser: headless Chromium driven by Selenium against a live
server (``tests/browser_support.py``). Marked ``browser`` (run by ``make test-browser`` and
in CI); skipped when Selenium, Chromium or chromedriver is missing, unless
``SPLITPOKER_BROWSER_REQUIRED=1`` makes that a failure. Screenshots go to
``$ARTIFACTS_DIR`` (default ``artifacts/``)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_support import (
    DESKTOP,
    PHONE,
    LiveServer,
    cards_in,
    click_card,
    no_horizontal_scroll,
    screenshot,
    severe,
    status,
    viewport,
    wait_for,
    wait_valid,
)

pytestmark = pytest.mark.browser


def test_arrange_by_clicks_submit_and_see_the_reveal(browser: Any) -> None:
    with LiveServer(game="thirteen", players=3, hands=2, seed=4, against=("greedy",)) as live:
        browser.get(live.url)
        wait_for(browser, lambda d: len(d.find_elements("css selector", "#hand .card")) == 13)
        match_id = browser.execute_script("return match.id")
        auto = live.api(f"api/matches/{match_id}/auto", {"hand": 0})["rows"]
        # sorting by suit groups the suits (spades, hearts, clubs, diamonds), by rank orders the ranks
        browser.find_element("id", "sort-suit").click()
        shown = [c.get_attribute("data-card") for c in browser.find_elements("css selector", "#hand .card")]
        suits = [card[1] for card in shown]
        assert suits == sorted(suits, key="shcd".index)
        browser.find_element("id", "sort-rank").click()
        shown = [c.get_attribute("data-card") for c in browser.find_elements("css selector", "#hand .card")]
        assert [card[0] for card in shown] == sorted((card[0] for card in shown), key="23456789TJQKA".index)
        # first a foul (the strongest row's cards in front): it is shown, and submit refused
        foul = [auto[2][:3], auto[1], auto[0] + auto[2][3:]]
        assert not live.api(f"api/matches/{match_id}/check", {"hand": 0, "rows": foul})["valid"]
        for k, row in enumerate(foul):
            browser.find_element("css selector", f"#rows .row:nth-child({k + 1}) .label").click()
            for card in row:
                click_card(browser, card)
        wait_for(browser, lambda d: "foul" in status(d))
        assert "倒水" in status(browser)
        assert browser.find_element("id", "submit").get_attribute("disabled") is not None
        screenshot(browser, "play-foul.png")
        browser.find_element("id", "clear").click()
        wait_for(browser, lambda d: len(d.find_elements("css selector", "#hand .card")) == 13)
        # the automatic arrangement, card by card, by clicks into the highlighted row; the
        # last card by drag and drop
        for k, row in enumerate(auto):
            browser.find_element("css selector", f"#rows .row:nth-child({k + 1}) .label").click()
            for card in row[:-1] if k == 2 else row:
                click_card(browser, card)
        browser.execute_script("""
            const card = document.querySelector(`#hand .card[data-card="${arguments[0]}"]`);
            const target = document.getElementById("row-2");
            const data = new DataTransfer();
            card.dispatchEvent(new DragEvent("dragstart", {dataTransfer: data, bubbles: true}));
            target.dispatchEvent(new DragEvent("dragover", {dataTransfer: data, bubbles: true, cancelable: true}));
            target.dispatchEvent(new DragEvent("drop", {dataTransfer: data, bubbles: true, cancelable: true}));
        """, auto[2][-1])
        wait_for(browser, lambda d: status(d).startswith("valid"))
        assert [len(browser.find_elements("css selector", f"#row-{k} .card")) for k in range(3)] == [3, 5, 5]
        browser.find_element("id", "hint").click()
        wait_for(browser, lambda d: d.find_elements("css selector", "#hints li"))  # one a structure: here one
        screenshot(browser, "play-arranged.png")
        browser.find_element("id", "submit").click()
        wait_for(browser, lambda d: d.find_element("id", "reveal").is_displayed())
        reveal = browser.find_element("id", "reveal-body")
        assert len(reveal.find_elements("css selector", ".seat-box")) == 3  # one box a seat
        assert len(reveal.find_elements("css selector", ".seat-box .card")) == 3 * 13
        after = live.api(f"api/matches/{match_id}/record")
        totals = [cell.text for cell in browser.find_elements("css selector", "#totals-row td")]
        expected = [f"{'+' if t > 0 else ''}{t:g}" for t in after["totals"]]
        assert totals == expected
        assert after["played"][0]["seats"][0]["rows"] == [sorted_cards(r) for r in auto]
        screenshot(browser, "play-reveal.png")
        browser.find_element("id", "next").click()
        wait_for(browser, lambda d: len(d.find_elements("css selector", "#hand .card")) == 13)
        browser.find_element("id", "auto").click()
        wait_for(browser, lambda d: status(d).startswith("valid"))
        browser.find_element("id", "submit").click()
        wait_for(browser, lambda d: d.find_element("id", "reveal").is_displayed())
        browser.find_element("id", "next").click()
        wait_for(browser, lambda d: d.find_element("id", "done").is_displayed())
        href = browser.find_element("id", "download").get_attribute("href")
        assert href.endswith(f"/api/matches/{match_id}/record")
        assert len(live.api(f"api/matches/{match_id}/record")["played"]) == 2
        assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


def sorted_cards(row: list[str]) -> list[str]:
    from splitpoker.envs.cards import format_card, parse_cards

    return [format_card(c) for c in sorted(parse_cards(" ".join(row)))]


def test_the_clock_runs_out_and_the_hand_is_played(browser: Any) -> None:
    with LiveServer(game="biji", players=4, hands=3, seed=8, time_limit=3, against=("random",)) as live:
        browser.get(live.url)
        wait_for(browser, lambda d: len(d.find_elements("css selector", "#hand .card")) == 9)
        assert browser.find_element("id", "clock").is_displayed()
        click_card(browser, browser.find_element("css selector", "#hand .card").get_attribute("data-card"))
        wait_for(browser, lambda d: d.find_element("id", "reveal").is_displayed(), timeout=20)
        assert "time ran out" in browser.find_element("id", "reveal-title").text
        assert "timed out" in browser.find_element("css selector", "#totals tr:nth-child(2) td").text
        match_id = browser.execute_script("return match.id")
        record = live.api(f"api/matches/{match_id}/record")
        assert record["played"][0]["timed_out"] is True
        screenshot(browser, "play-timeout.png")


# ---------------------------------------------------------------------------- the page at two sizes

def test_a_whole_match_on_a_phone_and_on_a_desktop(browser: Any) -> None:
    with LiveServer(game="thirteen", players=4, hands=2, seed=11, against=("greedy",)) as live:
        for (width, height), tag in ((PHONE, "phone"), (DESKTOP, "desktop")):
            viewport(browser, width, height)
            browser.get(live.url)
            wait_for(browser, lambda d: len(d.find_elements("css selector", "#hand .card")) == 13)
            match_id = browser.execute_script("return match.id")
            assert no_horizontal_scroll(browser)
            if tag == "phone":  # cards large enough to tap
                assert min(c.rect["width"] for c in browser.find_elements("css selector", "#hand .card")) >= 40
            for number in range(2):
                browser.find_element("id", "auto").click()
                wait_valid(browser)
                # every 5-card row on one line; Submit in view without scrolling
                for k in (1, 2):
                    tops = {c.rect["y"] for c in browser.find_elements("css selector", f"#row-{k} .card")}
                    assert len(tops) == 1, (tag, k, tops)
                assert browser.execute_script("""const r = document.getElementById("submit").getBoundingClientRect();
                    return r.top >= 0 && r.bottom <= window.innerHeight""")
                assert no_horizontal_scroll(browser)
                screenshot(browser, f"play-{tag}-arranged-{number + 1}.png")
                browser.find_element("id", "submit").click()
                wait_for(browser, lambda d: d.find_element("id", "reveal").is_displayed())
                assert no_horizontal_scroll(browser)
                boxes = browser.find_elements("css selector", "#reveal-body .seat-box")
                assert len(boxes) == 4
                if tag == "phone":  # stacked: one box a line
                    assert len({b.rect["x"] for b in boxes}) == 1
                else:  # side by side, none overflowing its box or the reveal
                    assert len({b.rect["y"] for b in boxes}) == 1
                    right = browser.find_element("id", "reveal").rect
                    assert all(b.rect["x"] + b.rect["width"] <= right["x"] + right["width"] for b in boxes)
                    assert browser.execute_script("""return [...document.querySelectorAll(".seat-box")]
                        .every((b) => b.scrollWidth <= b.clientWidth)""")
                screenshot(browser, f"play-{tag}-reveal-{number + 1}.png")
                browser.find_element("id", "next").click()
                if number == 0:
                    wait_for(browser, lambda d: len(d.find_elements("css selector", "#hand .card")) == 13)
            wait_for(browser, lambda d: d.find_element("id", "done").is_displayed())
            # the earlier hands open to their reveals
            past = browser.find_elements("css selector", "#past-list details")
            assert len(past) == 2
            past[-1].find_element("css selector", "summary").click()
            wait_for(browser, lambda d: len(d.find_elements("css selector", "#past-list details[open] .seat-box")) == 4)
            assert no_horizontal_scroll(browser)
            screenshot(browser, f"play-{tag}-done.png")
            assert len(live.api(f"api/matches/{match_id}/record")["played"]) == 2
            browser.execute_script("localStorage.removeItem('splitpoker-match'); history.replaceState(null, '', '/')")
        assert severe(browser) == []


def test_reload_resumes_and_another_client_cannot_take_the_match(browser: Any) -> None:
    with LiveServer(game="thirteen", players=3, hands=2, seed=6, against=("greedy",)) as live:
        browser.get(live.url)
        wait_for(browser, lambda d: len(d.find_elements("css selector", "#hand .card")) == 13)
        match_id = browser.execute_script("return match.id")
        assert browser.current_url.endswith(f"#match={match_id}")
        browser.find_element("id", "auto").click()
        wait_valid(browser)
        arranged = [cards_in(browser, f"#row-{k}") for k in range(3)]
        wait_for(browser, lambda d: live.api(f"api/matches/{match_id}")["hand"]["saved"] is not None)
        # leaving a hand being arranged asks first
        assert browser.execute_script("""const e = new Event("beforeunload", {cancelable: true});
            window.dispatchEvent(e); return e.defaultPrevented""")
        browser.refresh()
        wait_for(browser, lambda d: len(d.find_elements("css selector", "#row-2 .card")) == 5)
        assert browser.execute_script("return [match.id, match.hand.number]") == [match_id, 0]
        assert [sorted(cards_in(browser, f"#row-{k}")) for k in range(3)] == [sorted(r) for r in arranged]
        # another client (no cookie): refused, the match neither played nor dropped
        cookies = browser.execute_cdp_cmd("Network.getAllCookies", {})["cookies"]
        assert any(c["name"] == "splitpoker_match" and c["httpOnly"] for c in cookies)
        browser.execute_cdp_cmd("Network.clearBrowserCookies", {})
        browser.get("about:blank")
        browser.get(f"{live.url}#match={match_id}")
        wait_for(browser, lambda d: d.find_element("id", "notice").is_displayed())
        other = browser.execute_script("return match.id")
        assert other != match_id
        wait_for(browser, lambda d: len(d.find_elements("css selector", "#hand .card")) == 13)
        refused = browser.execute_async_script("""const done = arguments[arguments.length - 1];
            fetch(`/api/matches/${arguments[0]}/submit`, {method: "POST", headers: {"Content-Type": "application/json"},
                  body: JSON.stringify({hand: 0, rows: arguments[1]})}).then((r) => done(r.status));""",
                                               match_id, arranged)
        assert refused == 403
        state = live.api(f"api/matches/{match_id}")
        assert state["played"] == 0 and state["hand"]["number"] == 0
        # the first client again: its match, its hand, its rows
        keep = ("name", "value", "domain", "path", "expires", "httpOnly", "secure", "sameSite")
        browser.execute_cdp_cmd("Network.setCookies", {"cookies": [{k: c[k] for k in keep if k in c} for c in cookies]})
        browser.execute_script("localStorage.removeItem('splitpoker-match')")
        browser.get("about:blank")
        browser.get(f"{live.url}#match={match_id}")
        wait_for(browser, lambda d: d.execute_script("return match && match.id") == match_id
                 and len(d.find_elements("css selector", "#row-2 .card")) == 5)
        browser.find_element("id", "submit").click()
        wait_for(browser, lambda d: d.find_element("id", "reveal").is_displayed())
        assert live.api(f"api/matches/{match_id}/record")["played"][0]["seats"][0]["rows"] == \
            [sorted_cards(r) for r in arranged]
        assert severe(browser, allowed=("403", "beforeunload")) == []


def test_the_clock_plays_the_valid_arrangement(browser: Any) -> None:
    with LiveServer(game="biji", players=3, hands=2, seed=8, time_limit=4, against=("random",)) as live:
        browser.get(live.url)
        wait_for(browser, lambda d: len(d.find_elements("css selector", "#hand .card")) == 9)
        match_id = browser.execute_script("return match.id")
        # pots not increasing: the message names the pots
        hand = browser.execute_script("return match.hand.cards")
        auto = live.api(f"api/matches/{match_id}/auto", {"hand": 0})
        browser.execute_script("setRows(arguments[0])", auto["rows"][::-1])
        wait_for(browser, lambda d: "pot 1" in status(d) and "pot 2" in status(d) and "beats" in status(d))
        browser.find_element("id", "auto").click()
        wait_valid(browser)
        wait_for(browser, lambda d: d.find_element("id", "reveal").is_displayed(), timeout=20)
        assert "your arrangement was played" in browser.find_element("id", "reveal-title").text
        played = live.api(f"api/matches/{match_id}/record")["played"][0]
        assert played["timed_out"] is False and played["seats"][0]["split"] == auto["split"]
        assert sorted(sum(played["seats"][0]["rows"], [])) == sorted(hand)
        assert severe(browser) == []


#: a server seed whose first match deals seat 0 six pairs (thirteen, classic, two players;
#: see tests/test_play_page_api.py)
SPECIAL_SEED = 251


def test_a_special_hand_is_announced_and_named(browser: Any) -> None:
    with LiveServer(game="thirteen", players=2, hands=1, seed=SPECIAL_SEED, against=("random",)) as live:
        viewport(browser, *PHONE)
        browser.get(live.url)
        wait_for(browser, lambda d: d.find_element("id", "special").is_displayed())
        text = browser.find_element("id", "special").text
        assert "six pairs" in text and "六对半" in text and "scored automatically" in text
        assert "rows are not compared" in text and "pays you 3" in text
        screenshot(browser, "play-special.png")
        browser.find_element("id", "lang").click()
        wait_for(browser, lambda d: "自动计分" in d.find_element("id", "special").text)
        assert "six pairs" not in browser.find_element("id", "special").text
        browser.find_element("id", "lang").click()
        wait_for(browser, lambda d: "scored automatically" in d.find_element("id", "special").text)
        browser.find_element("id", "play-special").click()
        wait_for(browser, lambda d: d.find_element("id", "reveal").is_displayed())
        mine = browser.find_element("css selector", '.seat-box[data-seat="0"]')
        assert "six pairs" in mine.text and "rows not compared" in mine.text
        assert not any(place in mine.text for place in ("1st", "2nd"))
        assert "special hand (报到) 3" not in browser.find_element("id", "reveal").text
        screenshot(browser, "play-special-reveal.png")
        assert severe(browser) == []


def test_pickers_swaps_keys_and_the_language(browser: Any) -> None:
    with LiveServer(game="thirteen", players=4, hands=2, seed=3, against=("greedy",)) as live:
        browser.get(live.url)
        wait_for(browser, lambda d: len(d.find_elements("css selector", "#hand .card")) == 13)
        match_id = browser.execute_script("return match.id")
        hand = browser.execute_script("return match.hand.cards")
        pair_ranks = {card[0] for card in hand if sum(c[0] == card[0] for c in hand) >= 2}
        # 理牌: the pair picker pulls a pair into the middle row; again, the next pair
        browser.find_element("css selector", "#rows .row:nth-child(2) .label").click()
        browser.find_element("css selector", '#pickers button[data-kind="pair"]').click()
        first = cards_in(browser, "#row-1")
        assert len(first) == 2 and first[0][0] == first[1][0] and first[0][0] in pair_ranks
        browser.find_element("css selector", '#pickers button[data-kind="pair"]').click()
        second = cards_in(browser, "#row-1")
        assert len(second) == 2 and second[0][0] == second[1][0] and second[0][0] != first[0][0]
        browser.find_element("css selector", '#pickers button[data-kind="trips"]').click()
        assert len(cards_in(browser, "#row-1")) == 5
        # a swap between two full rows
        browser.find_element("id", "auto").click()
        wait_valid(browser)
        front, back = cards_in(browser, "#row-0"), cards_in(browser, "#row-2")
        click_card(browser, front[0])
        click_card(browser, back[0])
        wait_for(browser, lambda d: front[0] in cards_in(d, "#row-2") and back[0] in cards_in(d, "#row-0"))
        wait_for(browser, lambda d: "beats" in status(d) or status(d).startswith("valid"))
        # a foul names the rows as the page shows the cards: "front K♦ K♥ beats middle …"
        foul = [["Kd", "Kh", "3d"], ["6c", "7c", "Tc", "Jd", "Qh"], ["6d", "6s", "7d", "7h", "Td"]]
        browser.execute_script("setRows(arguments[0])", foul)
        wait_for(browser, lambda d: "beats" in status(d))
        text = status(browser)
        assert "front K♥ K♦ beats middle" in text and "倒水" in text and "T" not in text.split("beats")[1]
        assert browser.find_elements("css selector", "#status .cardtext.red")
        screenshot(browser, "play-foul-named.png")
        # the language: Chinese row names throughout, remembered across a reload
        browser.find_element("id", "lang").click()
        wait_for(browser, lambda d: "头道" in status(d) and "大于" in status(d) and "中道" in status(d))
        labels = [b.text for b in browser.find_elements("css selector", "#rows .label b")]
        assert labels == ["头道", "中道", "尾道"]
        assert browser.find_element("css selector", "#totals th:nth-child(3)").text == "座位 1"
        assert browser.find_element("css selector", "#totals th:nth-child(3) span").get_attribute("title") == "greedy"
        browser.refresh()
        wait_for(browser, lambda d: [b.text for b in d.find_elements("css selector", "#rows .label b")]
                 == ["头道", "中道", "尾道"])
        browser.find_element("id", "lang").click()
        wait_for(browser, lambda d: [b.text for b in d.find_elements("css selector", "#rows .label b")]
                 == ["front", "middle", "back"])
        # keys: a card is a focusable button; Enter selects it, 3 places it, Backspace takes it back
        browser.find_element("id", "clear").click()
        card = browser.find_element("css selector", "#hand .card")
        name = card.get_attribute("data-card")
        assert card.get_attribute("tabindex") == "0" and card.get_attribute("role") == "button"
        assert " of " in card.get_attribute("aria-label")
        from selenium.webdriver.common.keys import Keys

        card.send_keys(Keys.ENTER)
        wait_for(browser, lambda d: d.find_element("css selector", f'.card[data-card="{name}"]')
                 .get_attribute("aria-pressed") == "true")
        browser.switch_to.active_element.send_keys("3")
        wait_for(browser, lambda d: cards_in(d, "#row-2") == [name])
        browser.find_element("css selector", f'#row-2 .card[data-card="{name}"]').send_keys(Keys.ENTER)
        browser.switch_to.active_element.send_keys(Keys.BACKSPACE)
        wait_for(browser, lambda d: name in cards_in(d, "#hand"))
        # quick Auto-arrange then Submit: no stale answer shows an error
        browser.find_element("id", "auto").click()
        browser.find_element("id", "auto").click()
        wait_valid(browser)  # after both answers: the second re-checks the rows, Submit off meanwhile
        browser.find_element("id", "submit").click()
        wait_for(browser, lambda d: d.find_element("id", "reveal").is_displayed())
        browser.find_element("id", "next").click()
        wait_for(browser, lambda d: d.execute_script("return match.hand && match.hand.number") == 1)
        import time

        time.sleep(0.5)
        assert not browser.find_element("id", "error").is_displayed()
        assert not browser.find_element("id", "page-error").is_displayed()
        # the rules panel
        browser.find_element("id", "rules-button").click()
        panel = browser.find_element("id", "rules-panel")
        assert "classic" in panel.text and "six pairs" in panel.text and "scoop" in panel.text
        assert live.api(f"api/matches/{match_id}")["played"] == 1
        assert severe(browser) == []


def test_a_home_run_is_highlighted(browser: Any) -> None:
    # shisanshui: 打枪 doubles, 全垒打 doubles again; with this seed your automatic
    # arrangement scoops all three random opponents
    with LiveServer(game="thirteen", preset="shisanshui", players=4, hands=2, seed=0, against=("random",)) as live:
        viewport(browser, *DESKTOP)
        browser.get(live.url)
        wait_for(browser, lambda d: len(d.find_elements("css selector", "#hand .card")) == 13)
        browser.find_element("id", "auto").click()
        wait_valid(browser)
        browser.find_element("id", "submit").click()
        wait_for(browser, lambda d: d.find_element("id", "reveal").is_displayed())
        assert ("全垒打 (home run): you scooped every opponent"
                in browser.find_element("css selector", ".event.home-run").text)
        assert browser.find_elements("css selector", '.seat-box.home-run[data-seat="0"]')
        assert no_horizontal_scroll(browser)
        screenshot(browser, "play-home-run.png")
        browser.find_element("id", "rules-button").click()
        panel = browser.find_element("id", "rules-panel")
        assert "double" in panel.text and "home run" in panel.text and "clean dragon" in panel.text
        assert severe(browser) == []
