"""The policy's evaluations during and after a run: duplicate matches against the
``eval.opponents`` specs (:func:`evaluate_policy`), the best-response gain
(:func:`best_response`), and the final report's tables (``eval/final.md`` and the table
``splitpoker train`` prints), laid out as :mod:`splitpoker.eval.report` lays out its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..agents import load_agent
from ..agents.learned.policy import PolicyAgent
from ..envs.games import Game
from ..eval.report import markdown_table, text_table
from .config import TrainConfig

#: the columns of the evaluation tables
HEADER = ["opponent", "policy mean", "95% CI", "opponent mean", "deals", "policy foul rate", "ms/decision"]


def evaluate_policy(agent: PolicyAgent, game: Game, config: TrainConfig, hands: int,
                    progress: bool = False) -> dict[str, dict[str, Any]]:
    """Duplicate matches of the policy against each ``eval.opponents`` spec."""
    from ..eval.duplicate import evaluate

    out = {}
    for i, spec in enumerate(config.eval.opponents):
        opponent = load_agent(spec, game=game, num_players=config.num_players, seed=config.eval.seed + i)
        results = evaluate(game, [agent, opponent], config.num_players, hands, config.eval.seed, progress=progress,
                           specs=["policy", spec])
        out[spec] = {"policy": results[0].to_dict(), "opponent": results[1].to_dict()}
    return out


def best_response(agent: PolicyAgent, game: Game, config: TrainConfig, hands: int) -> dict[str, Any] | None:
    """The policy's best-response gain over ``hands`` duplicate deals (None when ``hands`` is 0)."""
    if hands == 0:
        return None
    from ..eval.exploit import agent_gain

    return agent_gain(game, agent, config.num_players, samples=config.eval.br_samples, hands=hands,
                      seed=config.eval.seed)


def br_line(gain: dict[str, Any]) -> str:
    """One line: the best-response gain, its CI, samples and deals."""
    return (f"best-response gain {gain['gain']:+.3f} [{gain['ci95'][0]:+.3f}, {gain['ci95'][1]:+.3f}] "
            f"(solver:samples={gain['samples']} answering the policy, {gain['deals']} deals)")


def _rows(results: dict[str, dict[str, Any]]) -> list[list[str]]:
    rows = []
    for spec, r in results.items():
        p, o = r["policy"], r["opponent"]
        rows.append([spec, f"{p['mean']:+.3f}", f"[{p['ci95'][0]:+.3f}, {p['ci95'][1]:+.3f}]", f"{o['mean']:+.3f}",
                     str(r.get("deals", "")), f"{p['foul_rate']:.1%}", f"{p['ms_per_decision']:.2f}"])
    return rows


def eval_table(results: dict[str, dict[str, Any]]) -> str:
    """A plain-text table: the policy's mean payoff and 95% CI against each opponent."""
    return text_table(HEADER, _rows(results))


def eval_markdown(results: dict[str, dict[str, Any]], config: TrainConfig, steps: int, checkpoint: Path) -> str:
    """``eval/final.md``: the run, the deals and a row per opponent."""
    lines = [f"# {config.game} policy evaluation: {config.num_players} players, preset {config.preset}", "",
             f"Checkpoint `{checkpoint}` after {steps} training hands, policy `{config.policy.kind}`.",
             f"Duplicate deals (each replayed in all {config.num_players} seat rotations; seats alternate policy "
             f"and opponent), seed {config.eval.seed}. Mean payoff per hand with the 95% CI over deals.", "",
             *markdown_table(HEADER, _rows(results))]
    return "\n".join(lines) + "\n"
