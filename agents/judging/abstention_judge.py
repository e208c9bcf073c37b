"""The abstention (flawed-premise) judge: label 1 when the answer recognises the question's false premise as
the reference answer describes it; applies only to abstention items (agents/judging/item_kinds.py)."""

from __future__ import annotations

from agents.judging.binary_label import BinaryLabelJudge
from agents.judging.item_kinds import ItemTraits, is_abstention_item
from agents.prompts.premise_judging import JUDGE_ABSTENTION, JUDGE_ABSTENTION_USER


class AbstentionJudge(BinaryLabelJudge):
    name = "abstention"
    description = "flawed-premise questions: does the answer recognise the false premise (label 1/0)"
    system_template = JUDGE_ABSTENTION
    user_template = JUDGE_ABSTENTION_USER

    def applies_to_item(self, item: ItemTraits) -> bool:
        return is_abstention_item(item)
