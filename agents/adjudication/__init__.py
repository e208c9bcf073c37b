"""Human adjudication of accuracy verdicts (paper App. D.1: every verdict ends as pass or fail).

A judge's `needs_adjudication` verdict stays pending until a person rules on it; a person may also overrule a
pass or fail. A ruling is an `AnswerAdjudicated` event (who, when, why, which judgment it resolves), projected
as (:Attempt)-[:ADJUDICATED_BY]->(:Adjudication)<-[:RESOLVED_BY]-(:Judgment); the latest ruling of an attempt
wins. `cases` reads what a person needs to rule (the item, the answer, the judge's rationale, the evidence
trace), `record` validates and appends a ruling. Raw accuracy never changes; `accuracy_adjudicated` in
agents/metrics/attempts.py is the accuracy after the rulings.
"""
