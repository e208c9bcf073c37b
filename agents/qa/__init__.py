"""The LongMemEval reading line (`colabench eval qa`): a reader answers each question from what a feeding mode
gives it (oracle evidence sessions, the full history, or top-k retrieved units), a judge grades the answer
under LongMemEval's rule for the question type, and every answer and verdict is an event in the graph."""
