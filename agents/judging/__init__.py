"""Judges of answers: accuracy, the five quality dimensions (blind, one call each) and the error analysis of
failed answers. Every verdict is an AnswerJudged event with the judge model and prompt hash."""
