"""The gotcha judge: label 1 when the answer brings up at least one of the reference's key points without
contradicting any; applies only to gotcha items (agents/judging/item_kinds.py)."""

from __future__ import annotations

from agents.judging.binary_label import BinaryLabelJudge
from agents.judging.item_kinds import ItemTraits, is_gotcha_item
from agents.prompts.premise_judging import JUDGE_GOTCHA, JUDGE_GOTCHA_USER


class GotchaJudge(BinaryLabelJudge):
    name = "gotcha"
    description = "gotcha questions: does the answer bring up the reference's key point (label 1/0)"
    system_template = JUDGE_GOTCHA
    user_template = JUDGE_GOTCHA_USER

    def applies_to_item(self, item: ItemTraits) -> bool:
        return is_gotcha_item(item)
