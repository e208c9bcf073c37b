// The stored answer text of one QA answer (a resumed run judges it without asking the reader again).
MATCH (a:QaAnswer {id: $answer_id})
RETURN a.answer AS answer
