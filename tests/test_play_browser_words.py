"""Browser play's words, pickers, suggestions and font in headless Chromium (marked
``browser``, driven through ``tests/browser_support.py``): every string of 中文 mode
Chinese, jokers and refusals in the page's language, a picker for every row type (jokers
included), 多选, the one-tap exchange of two rows, suggestions of different structures in
view on a phone, and the page's own CJK font. Screenshots go to ``$ARTIFACTS_DIR`` (default
``artifacts/``) at 390×844 and 1280×800."""

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
    viewport,
    wait_for,
    wait_valid,
)

pytestmark = pytest.mark.browser

#: Latin words 中文 mode may show: the page's name, the download's format and key names
#: (card ranks J Q K A, alone or in a run such as 10JQKA, are allowed everywhere, and so is
#: text marked English: the button that switches to English)
ALLOWED = ("splitpoker", "JSON", "Enter", "Backspace")

#: a Biji deal (three players) whose first hand holds both jokers and joker flushes
JOKERS_SEED = 53

LATIN_WORDS = """
const allowed = new Set(arguments[0]);
for (const details of document.querySelectorAll("details")) details.open = true;
const found = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  const parent = node.parentElement;
  if (!parent || parent.closest('.card, .cardtext, [lang="en"]') || !parent.checkVisibility()) continue;
  for (const word of node.textContent.match(/[A-Za-z]+/g) || []) {
    if (!allowed.has(word) && !/^[AJQK]+$/.test(word)) found.push(`${word}: ${node.textContent.trim().slice(0, 80)}`);
  }
}
return found;
"""


def latin_words(driver: Any) -> list[str]:
    """The visible Latin words outside cards and :data:`ALLOWED` (every <details> opened)."""
    return list(driver.execute_script(LATIN_WORDS, list(ALLOWED)))


def open_in(driver: Any, live: LiveServer, lang: str, cards: int) -> str:
    """The page in ``lang`` with a hand of ``cards`` cards shown; the match's id."""
    driver.get(f"{live.url}static/icon.svg")  # the page's origin, before the page: nothing to leave
    driver.execute_script("localStorage.setItem('splitpoker-lang', arguments[0])", lang)
    driver.get_log("browser")  # read: the icon's page asks for a favicon.ico the server does not have
    driver.get(live.url)
    wait_for(driver, lambda d: len(d.find_elements("css selector", "#hand .card")) == cards)
    return str(driver.execute_script("return match.id"))


def chosen(driver: Any) -> list[str]:
    """The unplaced cards shown chosen."""
    return list(driver.execute_script("return [...document.querySelectorAll('#hand .card.selected')]"
                                      ".map((c) => c.dataset.card)"))


def press(driver: Any, selector: str) -> None:
    """A click on the element, first scrolled to the middle of the screen (clear of the fixed
    bar at the top and the controls at the bottom)."""
    node = driver.find_element("css selector", selector)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", node)
    node.click()


def refusal(driver: Any, path: str, body: Any) -> str:
    """The page's words for the server's refusal of a request (made from the page)."""
    return str(driver.execute_async_script("""const done = arguments[arguments.length - 1];
        api(arguments[0], arguments[1]).then(() => done("no refusal"), (error) => done(errorText(error)));""",
                                           path, body))


@pytest.mark.parametrize("game, players, cards", [("thirteen", 4, 13), ("biji", 3, 9)])
def test_chinese_mode_shows_only_chinese(browser: Any, game: str, players: int, cards: int) -> None:
    with LiveServer(game=game, preset="shisanshui" if game == "thirteen" else "classic", players=players, hands=2,
                      seed=JOKERS_SEED, time_limit=600, against=("greedy",)) as live:
        for size, tag in ((PHONE, "phone"), (DESKTOP, "desktop")):
            viewport(browser, *size)
            match_id = open_in(browser, live, "zh", cards)
            assert browser.find_element("id", "title").text.startswith("十三张 · 十三水 · 4 人" if game == "thirteen"
                                                                       else "比鸡 · 经典 · 3 人")
            # arranging: pickers, suggestions, a refusal, the rules
            press(browser, "#hint")
            wait_for(browser, lambda d: d.find_elements("css selector", "#hints li"))
            press(browser, "#rules-button")
            assert latin_words(browser) == []
            text = refusal(browser, f"/api/matches/{match_id}/check", {"hand": 0, "rows": [[], [], []]})
            assert text == "头道有 0 张牌，需要 3 张。", text
            browser.execute_script("showError(arguments[0])", text)
            assert latin_words(browser) == []
            screenshot(browser, f"words-zh-{game}-{tag}-arranging.png")
            # a finished hand with its result
            press(browser, "#auto")
            wait_valid(browser)
            press(browser, "#submit")
            wait_for(browser, lambda d: d.find_element("id", "reveal").is_displayed())
            found = latin_words(browser)
            assert found == [], found
            screenshot(browser, f"words-zh-{game}-{tag}-result.png")
            panel = browser.find_element("id", "rules-panel").text
            assert ("两两比牌" in panel and "翻倍" in panel and "第二大" in panel if game == "thirteen"
                    else "喜：全黑" in panel and "两张王" in panel)
            browser.execute_script("localStorage.removeItem('splitpoker-match'); history.replaceState(null, '', '/')")
            press(browser, "#rules-button")
        assert severe(browser, allowed=("400",)) == []  # the refusal asked for


def test_refusals_and_jokers_in_the_language_of_the_page(browser: Any) -> None:
    with LiveServer(game="biji", players=3, hands=2, seed=JOKERS_SEED, against=("greedy",)) as live:
        viewport(browser, *DESKTOP)
        match_id = open_in(browser, live, "en", 9)
        # hands counted from 1, as the header counts them
        text = refusal(browser, f"/api/matches/{match_id}/auto", {"hand": 1})
        assert text == "Hand 2 is not the hand in play (hand 1).", text
        assert refusal(browser, f"/api/matches/{match_id}/submit", {"hand": 0, "rows": [["As"], [], []]}) == \
            "The pot 1 row has 1 cards; it needs 3."
        # the jokers in words of the page's language
        faces = browser.execute_script("""return [...document.querySelectorAll('#hand .card.joker')]
            .map((c) => [c.dataset.card, c.textContent, c.getAttribute('aria-label')])""")
        assert sorted(faces) == [["BJ", "Little★", "little joker"], ["RJ", "Big★", "big joker"]]
        assert "大王" not in browser.find_element("id", "hand").text
        assert browser.execute_script("return cardWords('RJ')") == "Big Joker"
        screenshot(browser, "words-en-jokers.png")
        press(browser, "#lang")
        wait_for(browser, lambda d: "大王" in d.find_element("id", "hand").text)
        text = refusal(browser, f"/api/matches/{match_id}/auto", {"hand": 1})
        assert text == "第 2 局不是正在进行的牌局（现在是第 1 局）。", text
        assert severe(browser, allowed=("409", "400")) == []


def test_pickers_for_every_row_type_and_several_cards_at_once(browser: Any) -> None:
    with LiveServer(game="thirteen", players=4, hands=1, seed=3, against=("greedy",)) as live:
        viewport(browser, *PHONE)
        match_id = open_in(browser, live, "en", 13)  # 3d 6c 6d 6s 7c 7d 7h Tc Td Jd Qh Kd Kh
        press(browser, "#rows .row:nth-child(3) .label")
        kinds = [b.get_attribute("data-kind") for b in browser.find_elements("css selector", "#pickers .picker")]
        assert {"full_house", "four_of_a_kind", "straight_flush"} <= set(kinds)
        assert not browser.find_element("css selector", '#pickers [data-kind="four_of_a_kind"]').is_enabled()
        press(browser, '#pickers [data-kind="full_house"]')
        assert sorted(cards_in(browser, "#row-2")) == ["7c", "7d", "7h", "Kd", "Kh"]
        press(browser, '#pickers [data-kind="full_house"]')  # the next one
        second = cards_in(browser, "#row-2")
        assert len(second) == 5 and sorted(second) != ["7c", "7d", "7h", "Kd", "Kh"]
        screenshot(browser, "words-pickers-full-house.png")
        # a row filled by hand offers no picker
        press(browser, "#auto")
        wait_valid(browser)
        assert browser.find_elements("css selector", "#pickers .picker") == []
        # 多选: choose several unplaced cards, tap a row: they go in together
        press(browser, "#clear")
        wait_for(browser, lambda d: len(d.find_elements("css selector", "#hand .card")) == 13)
        press(browser, "#multi")
        for card in ("Kd", "Kh", "3d"):
            click_card(browser, card)
        assert chosen(browser) == ["3d", "Kd", "Kh"] and cards_in(browser, "#row-0") == []
        press(browser, "#rows .row:nth-child(1) .label")
        assert sorted(cards_in(browser, "#row-0")) == ["3d", "Kd", "Kh"]
        # with 多选 a picker chooses: a tap on a row places the group
        press(browser, "#rows .row:nth-child(2) .label")
        press(browser, '#pickers [data-kind="trips"]')
        assert len(chosen(browser)) == 3 and cards_in(browser, "#row-1") == []
        press(browser, "#rows .row:nth-child(2) .label")
        assert len(cards_in(browser, "#row-1")) == 3
        # middle and back the wrong way round: one tap exchanges them
        browser.execute_script("setRows(arguments[0])", [["3d", "Tc", "Jd"], ["6c", "6d", "6s", "7h", "Td"],
                                                         ["7c", "7d", "Kd", "Kh", "Qh"]])
        wait_for(browser, lambda d: d.find_elements("id", "swap-rows"))
        assert browser.find_element("id", "swap-rows").text == "Swap middle and back"
        screenshot(browser, "words-swap-rows.png")
        press(browser, "#swap-rows")
        wait_valid(browser)
        assert sorted(cards_in(browser, "#row-2")) == ["6c", "6d", "6s", "7h", "Td"]
        assert live.api(f"api/matches/{match_id}")["played"] == 0
        assert severe(browser) == []


def test_the_joker_pickers_of_biji(browser: Any) -> None:
    with LiveServer(game="biji", players=3, hands=1, seed=JOKERS_SEED, against=("greedy",)) as live:
        viewport(browser, *DESKTOP)
        open_in(browser, live, "zh", 9)  # BJ RJ 2c 2s 3c 5d Ts Kc Kh
        for _ in range(3):  # the pairs, strongest first: K, 2, then the jokers
            press(browser, '#pickers [data-kind="pair"]')
        assert sorted(cards_in(browser, "#row-0")) == ["BJ", "RJ"]
        press(browser, "#clear")
        press(browser, '#pickers [data-kind="flush"]')
        flush = cards_in(browser, "#row-0")
        assert len(flush) == 3 and "BJ" in flush and {card[1] for card in flush if card != "BJ"} == {"c"}
        from splitpoker.envs.cards import parse_cards
        from splitpoker.envs.games import make_game

        assert make_game("biji").describe_rows([parse_cards(flush)]) == ["flush"]
        screenshot(browser, "words-biji-joker-flush.png")
        assert severe(browser) == []


def test_suggestions_differ_in_structure_cost_nothing_again_and_show_on_a_phone(browser: Any) -> None:
    with LiveServer(game="thirteen", players=4, hands=1, seed=3, against=("greedy",), hint_samples=64) as live:
        viewport(browser, *PHONE)
        match_id = open_in(browser, live, "en", 13)
        press(browser, "#hint")
        wait_for(browser, lambda d: len(d.find_elements("css selector", "#hints li")) >= 2)
        structures = browser.execute_script("""return [...document.querySelectorAll('#hints li')]
            .map((li) => [...li.querySelectorAll('.place')].map((p) => p.textContent).join(' | '))""")
        assert len(set(structures)) == len(structures), structures
        in_view = """const first = document.querySelector('#hints li').getBoundingClientRect();
            const bar = document.querySelector('header').getBoundingClientRect();
            const controls = document.getElementById('actions').getBoundingClientRect();
            return first.top >= bar.bottom - 1 && first.top + 40 <= window.innerHeight
                && (controls.bottom <= first.top || controls.top >= first.top + 40)"""
        assert browser.execute_script(in_view)
        screenshot(browser, "words-suggestions-phone.png")
        left = live.api(f"api/matches/{match_id}")["hand"]["hints_left"]
        browser.execute_script("window.scrollTo(0, 0)")
        press(browser, "#hint")
        assert browser.execute_script(in_view)
        browser.execute_script("lastHints = null")  # as after a reload: asked of the server again
        press(browser, "#hint")
        wait_for(browser, lambda d: d.execute_script("return lastHints !== null && inflight.size === 0"))
        assert live.api(f"api/matches/{match_id}")["hand"]["hints_left"] == left  # a repeat spends nothing
        assert no_horizontal_scroll(browser)
        assert severe(browser) == []


def test_the_page_brings_its_own_chinese_font(browser: Any) -> None:
    with LiveServer(game="thirteen", players=2, hands=1, seed=3, against=("greedy",)) as live:
        viewport(browser, *DESKTOP)
        open_in(browser, live, "zh", 13)
        loaded = browser.execute_async_script("""const done = arguments[arguments.length - 1];
            document.fonts.load('16px "splitpoker CJK"', '头道').then((faces) => done(faces.length));""")
        assert loaded == 1
        assert browser.execute_script("""return document.fonts.check('16px "splitpoker CJK"', '头道中道尾道')""")
        browser.execute_cdp_cmd("DOM.enable", {})
        browser.execute_cdp_cmd("CSS.enable", {})
        root = browser.execute_cdp_cmd("DOM.getDocument", {})["root"]["nodeId"]
        label = browser.execute_cdp_cmd("DOM.querySelector", {"nodeId": root, "selector": "#rows .label b"})["nodeId"]
        fonts = browser.execute_cdp_cmd("CSS.getPlatformFontsForNode", {"nodeId": label})["fonts"]
        assert [f["familyName"] for f in fonts] == ["splitpoker CJK"], fonts  # 头道 drawn in the page's font
        assert severe(browser) == []
